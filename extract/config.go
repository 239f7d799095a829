package extract

import (
	"maps"
	"slices"
	"strings"
)

// Strategy names an extraction strategy.
type Strategy string

// The extraction strategies.
const (
	StrategyNLP      Strategy = "nlp"
	StrategyTuple    Strategy = "tuple"
	StrategySchema   Strategy = "schema"
	StrategyDialogue Strategy = "dialogue"
)

// Config is the snapshot of everything that shaped one extraction version.
// It is stored verbatim with the version so a run can be repeated or compared.
type Config struct {
	Strategy      Strategy          `json:"strategy"`
	Provider      Provider          `json:"provider,omitempty"`
	Model         string            `json:"model,omitempty"`
	SchemaName    string            `json:"schema_name,omitempty"`
	SchemaVersion int               `json:"schema_version,omitempty"`
	EntityTypes   []string          `json:"entity_types,omitempty"`
	Language      string            `json:"language,omitempty"`
	ChunkSize     int               `json:"chunk_size"`
	Overlap       int               `json:"overlap"`
	Strict        bool              `json:"strict,omitempty"`
	Concurrency   int               `json:"concurrency"`
	MaxGleaning   int               `json:"max_gleaning"`
	MaxFragments  int               `json:"max_fragments"`
	Prompts       map[string]string `json:"prompts,omitempty"`
	Temperature   float64           `json:"temperature,omitempty"`
	// Embedder names the vectorizer: use-lite (the default, also when
	// empty: a sentence encoder run offline), offline (hashed n-grams),
	// gemini or openai.
	Embedder EmbedderName `json:"embedder,omitempty"`
	// NoCache asks the model again for every call instead of answering
	// from the call cache (a clean run).
	NoCache bool `json:"no_cache,omitempty"`
	// Reference names a version ("NAME@V") whose graph is the domain
	// graph of the run: extracted nodes whose names match its names or
	// aliases become its nodes (KAG's domain KG injection).
	Reference string `json:"reference,omitempty"`
	// Reports chooses who writes the community reports: offline (also
	// when empty: extractive, from the graph) or model (the run's
	// provider, once per community of at least MinReportSize members, at
	// most MaxReports calls; the others stay offline).
	Reports ReportWriter `json:"reports,omitempty"`
	// MaxReports bounds the model's report calls of a run; zero means
	// DefaultMaxReports.
	MaxReports int `json:"max_reports,omitempty"`
	// OfficialNames chooses what the schema strategy makes of the official
	// name its standardisation step gives an entity: rename (also when
	// empty: the node takes the official name and keeps the surface name
	// as an alias) or node (KAG's shape: the node keeps the name the text
	// uses and an OfficialName edge leads to a node of the official name).
	OfficialNames OfficialNames `json:"official_names,omitempty"`
	// ChunkNodes puts KAG's chunk layer into the version's graph: a Chunk
	// node per chunk, whether anything was extracted from it or not, and
	// a source edge from each node to every chunk it was extracted from.
	ChunkNodes bool `json:"chunk_nodes,omitempty"`
	// NoDecisions leaves out the extraction's remembered duplicate
	// decisions (merges, not-the-same) that a run otherwise applies in
	// its final job: a retry of a version that applied none applies none.
	NoDecisions bool `json:"no_decisions,omitempty"`
	// TableRows is how many rows of a CSV table one chunk maps (each
	// chunk is mapped and merged on its own, so a table's size does not
	// bound what a run holds at once); 0, in versions made before, maps
	// every table as one chunk.
	TableRows int `json:"table_rows,omitempty"`
}

// DefaultTableRows is the rows of a CSV table a chunk maps by default
// (Config.TableRows). Measured on 300k triples: 25,000-row chunks took
// 75 s where 10,000-row chunks took 98 s (each chunk's merge rewrites
// pages of the whole node table), with the same peak memory, which the
// final job sets.
const DefaultTableRows = 25_000

// MaxTableRows bounds Config.TableRows.
const MaxTableRows = 1_000_000

// OfficialNames is what standardisation makes of an official name.
type OfficialNames string

// What standardisation makes of an official name (Config.OfficialNames).
const (
	OfficialRename OfficialNames = "rename"
	OfficialNode   OfficialNames = "node"
)

// OfficialNameModes names the values Config.OfficialNames takes.
var OfficialNameModes = []OfficialNames{OfficialRename, OfficialNode}

// OfficialNameLabel is the label of the edge from an entity to the node
// of its official name (Config.OfficialNames node), as KAG names it.
const OfficialNameLabel = "OfficialName"

// ReportWriter is who writes a run's community reports.
type ReportWriter string

// Community report writers (Config.Reports).
const (
	ReportsOffline ReportWriter = "offline"
	ReportsModel   ReportWriter = "model"
)

// ReportWriters names the community report writers a config may ask for.
var ReportWriters = []ReportWriter{ReportsOffline, ReportsModel}

// Bounds of the model's community reports: the fewest members a
// community needs for one, the calls a run makes when the config names
// no bound, and the most it may name.
const (
	MinReportSize     = 3
	DefaultMaxReports = 50
	MaxReportCalls    = 1000
)

// ModelReports reports whether the config asks a model for the
// community reports.
func (c Config) ModelReports() bool { return c.Reports == ReportsModel }

// DefaultConfig returns the offline defaults.
func DefaultConfig() Config {
	return Config{
		Strategy:     StrategyNLP,
		Provider:     ProviderNone,
		ChunkSize:    1200,
		Overlap:      100,
		Concurrency:  4,
		MaxGleaning:  1,
		MaxFragments: 8,
	}
}

// Limits of the settings Validate accepts.
const (
	MinChunkSize   = 50
	MaxChunkSize   = 1_000_000
	MinConcurrency = 1
	MaxConcurrency = 64
	MaxGleanRounds = 5
	MaxFragmentCap = 1000
)

// Provider names a model provider.
type Provider string

// Model providers a config may ask for; none runs offline.
const (
	ProviderGemini Provider = "gemini"
	ProviderOpenAI Provider = "openai"
	ProviderNone   Provider = "none"
)

// Providers names the model providers a config may ask for.
var Providers = []Provider{ProviderGemini, ProviderOpenAI, ProviderNone}

// Offline reports whether a provider name asks no model (none, or unset).
func Offline(provider Provider) bool { return provider == ProviderNone || provider == "" }

// Embedders names the vectorizers a config may ask for.
var Embedders = []EmbedderName{EmbedderUSELite, EmbedderOffline, EmbedderGemini, EmbedderOpenAI}

// Strategies names the extraction strategies.
var Strategies = []Strategy{StrategyNLP, StrategyTuple, StrategySchema, StrategyDialogue}

// WithDefaults fills the settings left at their zero value: the nlp
// strategy, its "none" provider, four chunks at a time, eight description
// fragments. Chunk size and overlap are not filled: zero is a setting the
// caller chose, which Validate refuses.
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	if c.Strategy == "" {
		c.Strategy = d.Strategy
	}
	if c.Strategy == StrategyNLP {
		c.Prompts = nil
		// The provider of an nlp run only writes its community reports.
		if !c.ModelReports() {
			c.Provider, c.Model = d.Provider, ""
		}
	}
	if c.Concurrency == 0 {
		c.Concurrency = d.Concurrency
	}
	if c.MaxFragments == 0 {
		c.MaxFragments = d.MaxFragments
	}
	if c.TableRows == 0 {
		c.TableRows = DefaultTableRows
	}
	return c
}

// Validate checks the settings every entry point (CLI, run form, JSON
// API) accepts, with one message each: a known strategy, provider and
// report writer, 0 to MaxReportCalls report calls, a chunk size from MinChunkSize to MaxChunkSize, an overlap from 0 to less
// than the chunk size, MinConcurrency to MaxConcurrency chunks at a time,
// 0 to MaxGleanRounds gleaning rounds, 1 to MaxFragmentCap description
// fragments and 0 to MaxTableRows rows of a table per chunk. It returns
// an *Error of kind KindInvalid.
func (c Config) Validate() error {
	if !slices.Contains(Strategies, c.Strategy) {
		return Errorf(KindInvalid, "unknown strategy %q (use %s)", c.Strategy, orList(Strategies))
	}
	if c.Provider != "" && !slices.Contains(Providers, c.Provider) {
		return Errorf(KindInvalid, "unknown provider %q (use %s)", c.Provider, orList(Providers))
	}
	if c.Embedder != "" && !slices.Contains(Embedders, c.Embedder) {
		return Errorf(KindInvalid, "unknown embedder %q (use %s)", c.Embedder, orList(Embedders))
	}
	if c.Reports != "" && !slices.Contains(ReportWriters, c.Reports) {
		return Errorf(KindInvalid, "unknown reports %q (use %s)", c.Reports, orList(ReportWriters))
	}
	if err := inRange("max reports", c.MaxReports, 0, MaxReportCalls); err != nil {
		return err
	}
	if err := inRange("table rows", c.TableRows, 0, MaxTableRows); err != nil {
		return err
	}
	if c.OfficialNames != "" && !slices.Contains(OfficialNameModes, c.OfficialNames) {
		return Errorf(KindInvalid, "unknown official names %q (use %s)", c.OfficialNames, orList(OfficialNameModes))
	}
	// Prompt templates come from requests: each is checked before a run
	// is accepted (ParsePromptTemplate).
	for _, k := range slices.Sorted(maps.Keys(c.Prompts)) {
		if _, err := ParsePromptTemplate(k, c.Prompts[k]); err != nil {
			return err
		}
	}
	if err := inRange("chunk size", c.ChunkSize, MinChunkSize, MaxChunkSize); err != nil {
		return err
	}
	if c.Overlap < 0 {
		return Errorf(KindInvalid, "the overlap must not be negative")
	}
	if c.Overlap >= c.ChunkSize {
		return Errorf(KindInvalid, "the overlap must be smaller than the chunk size")
	}
	if err := inRange("concurrency", c.Concurrency, MinConcurrency, MaxConcurrency); err != nil {
		return err
	}
	if err := inRange("max gleaning", c.MaxGleaning, 0, MaxGleanRounds); err != nil {
		return err
	}
	return inRange("max fragments", c.MaxFragments, 1, MaxFragmentCap)
}

// inRange refuses n outside lo..hi, naming the setting.
func inRange(name string, n, lo, hi int) error {
	if n < lo || n > hi {
		return Errorf(KindInvalid, "%s must be a number from %d to %d", name, lo, hi)
	}
	return nil
}

// Names are the values of a typed set as strings, in their order, for
// help texts, pickers, messages and schemas.
func Names[S ~string](list []S) []string {
	names := make([]string, len(list))
	for i, n := range list {
		names[i] = string(n)
	}
	return names
}

// orList joins names as "a, b, c or d".
func orList[S ~string](list []S) string {
	names := Names(list)
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
