package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/diff"
	"github.com/kgstudio/kgstudio/extract/eval"
	"github.com/kgstudio/kgstudio/extract/query"
	"github.com/kgstudio/kgstudio/extract/record"
	"github.com/kgstudio/kgstudio/internal/lru"
	"github.com/kgstudio/kgstudio/store"
)

// Scores scores an extraction's versions: on its question set, when it
// has one (evidence recall and answers per query mode), and on measures
// of their graphs and runs. A version's scores are held in memory (the
// latest scoreCacheSize, bounded) for the question set they were scored
// on; concurrent requests for one share its scoring.
type Scores struct {
	store *store.Store
	log   *slog.Logger
	cache *lru.Cache[scoreKey, VersionScores]
	// What a version's scores are made of: its answers, comparisons,
	// duplicates, documents' names, communities and the prices of its
	// calls.
	models      *Models
	queries     *Queries
	comparisons *Comparisons
	curation    *Curation
	documents   *Documents
	communities *Communities
}

// scoreCacheSize bounds the versions' scores held in memory (each with a
// value per question and measure).
const scoreCacheSize = 256

type scoreKey struct {
	version int
	set     string // digest of the question set
}

// ScoreK are the depths recall is scored at.
var ScoreK = []int{5, 10}

// Measure is one column of a scoreboard: Better is 1 when higher is
// better, -1 when lower is, 0 when neither is (sizes).
type Measure struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Better int    `json:"better"`
}

// Measures lists the scoreboard's measures in their order: recall@k and
// answers per query mode (with a question set), then the graph's and the
// run's; ReferenceMeasures are added when the extraction has a reference
// version.
func Measures(withQuestions bool) []Measure {
	var out []Measure
	if withQuestions {
		for _, k := range ScoreK {
			for _, m := range query.Modes {
				out = append(out, Measure{Key: fmt.Sprintf("recall@%d.%s", k, m), Label: fmt.Sprintf("recall@%d %s", k, m), Better: 1})
			}
		}
		for _, m := range query.Modes {
			out = append(out, Measure{Key: "answers." + string(m), Label: "answers " + string(m), Better: 1})
		}
	}
	return append(out,
		Measure{"nodes", "nodes", 0},
		Measure{"edges", "edges", 0},
		Measure{"specific_relations", "specific relations", 1},
		Measure{"components", "components", -1},
		Measure{"largest_component", "largest component share", 1},
		Measure{"modularity", "modularity", 1},
		Measure{"types", "node types", 0},
		Measure{"duplicate_pairs", "duplicate candidates", -1},
		Measure{"calls", "model calls", -1},
		Measure{"tokens", "tokens", -1},
		Measure{"seconds", "run seconds", -1},
	)
}

// ReferenceMeasures score a version's graph against its extraction's
// reference version (marked as the reference, or a graph imported as one):
// node and edge precision, recall and F1, as the compare page scores them.
var ReferenceMeasures = []Measure{
	{"reference.nodes_f1", "nodes F1 vs reference", 1},
	{"reference.edges_f1", "edges F1 vs reference", 1},
	{"reference.nodes_precision", "nodes precision vs reference", 1},
	{"reference.nodes_recall", "nodes recall vs reference", 1},
	{"reference.edges_precision", "edges precision vs reference", 1},
	{"reference.edges_recall", "edges recall vs reference", 1},
}

// VersionScores are one version's scores.
type VersionScores struct {
	Version  string             `json:"version"`
	ID       int                `json:"id"`
	Status   record.Status      `json:"status"`
	Settings map[string]any     `json:"settings"`
	Measures map[string]float64 `json:"measures"`
	// PerQuestion holds, for each question measure, its value per
	// question in the set's order (for paired comparisons).
	PerQuestion map[string][]float64 `json:"per_question,omitempty"`
	// Curves are, per query mode, mean evidence recall at each depth
	// from 1 to the deepest scored (read from that deepest ranking).
	Curves map[query.Mode][]float64 `json:"curves,omitempty"`
	Cost   string                   `json:"cost"`
	// Note says why a version has no scores (it has not finished).
	Note string `json:"note,omitempty"`
}

// Board is an extraction's scoreboard: its versions' scores, the
// measures and, per measure with a better direction, the version that
// scores best. Reference names the version the others are scored against
// (empty for none).
type Board struct {
	Extraction string            `json:"extraction"`
	Reference  string            `json:"reference,omitempty"`
	Questions  int               `json:"questions"`
	Measures   []Measure         `json:"measures"`
	Versions   []VersionScores   `json:"versions"`
	Best       map[string]string `json:"best"`
}

// SetQuestions attaches a question set to an extraction, replacing the
// one it had; the set is checked first (see eval.ReadQuestions).
func (s *Scores) SetQuestions(ctx context.Context, extraction string, set eval.QuestionSet) error {
	b, err := json.Marshal(set)
	if err != nil {
		return err
	}
	return s.store.SetQuestions(ctx, extraction, string(b))
}

// Questions returns an extraction's question set (empty when it has none).
func (s *Scores) Questions(ctx context.Context, extraction string) (eval.QuestionSet, error) {
	data, err := s.store.Questions(ctx, extraction)
	if err != nil || data == "" {
		return eval.QuestionSet{}, err
	}
	var set eval.QuestionSet
	if err := json.Unmarshal([]byte(data), &set); err != nil {
		return eval.QuestionSet{}, extract.Wrap(extract.KindInternal, err, "read the stored question set")
	}
	return set, nil
}

// Board scores every version of an extraction (those scored before on
// the same question set come from memory).
func (s *Scores) Board(ctx context.Context, extraction string) (Board, error) {
	return s.BoardOf(ctx, extraction, nil)
}

// BoardOf is Board over the versions whose ids only lists (nil: every
// version), so an experiment scores the versions it made and no others;
// the extraction's reference still scores them.
func (s *Scores) BoardOf(ctx context.Context, extraction string, only []int) (Board, error) {
	versions, err := s.store.ExtractionVersions(ctx, extraction)
	if err != nil {
		return Board{}, err
	}
	set, err := s.Questions(ctx, extraction)
	if err != nil {
		return Board{}, err
	}
	b := Board{Extraction: extraction, Questions: len(set.Questions), Measures: Measures(len(set.Questions) > 0), Best: map[string]string{}}
	ref := -1
	for i, v := range versions {
		if v.Reference && v.Status == record.StatusDone {
			ref = i
		}
	}
	if ref >= 0 {
		b.Measures = append(b.Measures, ReferenceMeasures...)
		b.Reference = versions[ref].Label()
	}
	for i, v := range versions {
		if only != nil && !slices.Contains(only, v.ID) {
			continue
		}
		vs, err := s.Version(ctx, v, set)
		if err != nil {
			return Board{}, err
		}
		if ref >= 0 && i != ref && v.Status == record.StatusDone {
			if vs, err = s.withReference(ctx, versions[ref], v, vs); err != nil {
				return Board{}, err
			}
		}
		b.Versions = append(b.Versions, vs)
	}
	b.Best = BestOf(b.Measures, b.Versions)
	return b, nil
}

// TableMeasures are the measures a scoreboard's table shows: recall@10
// per query mode and the default mode's answers beside the graph and run
// measures (the JSON has every measure).
func TableMeasures(measures []Measure) []Measure {
	var out []Measure
	for _, m := range measures {
		if !strings.HasPrefix(m.Key, "recall@5.") && !(strings.HasPrefix(m.Key, "answers.") && m.Key != "answers.mix") &&
			!strings.HasSuffix(m.Key, "_precision") && !strings.HasSuffix(m.Key, "_recall") {
			out = append(out, m)
		}
	}
	return out
}

// BestValues are the values of the best versions (see BestOf), so a
// table marks every version as good as the best; a measure on which every
// version scores the same is left out.
func BestValues(best map[string]string, versions []VersionScores) map[string]float64 {
	out := map[string]float64{}
	for key, at := range best {
		// A measure every version scores alike has no best to mark.
		var seen []float64
		for _, v := range versions {
			if x, ok := v.Measures[key]; ok && !slices.Contains(seen, x) {
				seen = append(seen, x)
			}
		}
		if len(seen) < 2 {
			continue
		}
		for _, v := range versions {
			if v.Version == at {
				out[key] = v.Measures[key]
			}
		}
	}
	return out
}

// BestOf names, per measure with a better direction, the version that
// scores best (the first of equals); versions without the measure are
// left out.
func BestOf(measures []Measure, versions []VersionScores) map[string]string {
	best := map[string]string{}
	for _, m := range measures {
		if m.Better == 0 {
			continue
		}
		var at string
		var val float64
		for _, v := range versions {
			x, ok := v.Measures[m.Key]
			if !ok {
				continue
			}
			if at == "" || float64(m.Better)*(x-val) > 1e-12 {
				at, val = v.Version, x
			}
		}
		if at != "" {
			best[m.Key] = at
		}
	}
	return best
}

// Version scores one version on a question set (none: the graph and run
// measures only). A version that has not finished has no measures and a
// note saying so.
func (s *Scores) Version(ctx context.Context, v record.Version, set eval.QuestionSet) (VersionScores, error) {
	vs := VersionScores{Version: v.Label(), ID: v.ID, Status: v.Status, Settings: settingsOf(v.Config), Measures: map[string]float64{}}
	if v.Status != record.StatusDone {
		vs.Note = fmt.Sprintf("%s: scored once it has finished", v.Status)
		return vs, nil
	}
	key := scoreKey{version: v.ID, set: digestOf(set)}
	// The scoring goes on when the caller leaves: its scores are stored.
	sctx := context.WithoutCancel(ctx)
	return s.cache.Get(ctx, key, func() (VersionScores, error) {
		// Scored before, by this process or another: stored with the
		// version.
		var stored VersionScores
		if ok, err := s.store.ReadVersionIndex(sctx, v.ID, store.IndexScores, scoresStamp+key.set, func(b []byte) error {
			return json.Unmarshal(b, &stored)
		}); err == nil && ok && stored.ID == v.ID {
			return stored, nil
		}
		return s.score(sctx, v, set, key, vs)
	})
}

// scoresStamp names the scorer in a stored score's stamp: a change to
// what is scored changes it, and scores stored before are scored again.
const scoresStamp = "scores-v2 "

// score scores a version afresh and stores the scores with it.
func (s *Scores) score(ctx context.Context, v record.Version, set eval.QuestionSet, key scoreKey, vs VersionScores) (VersionScores, error) {
	if err := s.graphMeasures(ctx, v, &vs); err != nil {
		return vs, err
	}
	if len(set.Questions) > 0 {
		if err := s.questionMeasures(ctx, v, set, &vs); err != nil {
			return vs, err
		}
	}
	vs.Cost = s.models.providers.CostOf(v)
	if b, err := json.Marshal(vs); err == nil {
		if err := s.store.SaveVersionIndex(context.WithoutCancel(ctx), v.ID, store.IndexScores, scoresStamp+key.set, b); err != nil {
			s.log.
				Warn("scores not stored", "version_id", v.ID, "err", err)
		}
	}
	return vs, nil
}

// Rescore scores every finished version of an extraction again on its
// question set, replacing the scores stored and held (after a change the
// stamps cannot see: a curation decision that changes the duplicate
// candidates, a changed price table).
func (s *Scores) Rescore(ctx context.Context, extraction string) error {
	versions, err := s.store.ExtractionVersions(ctx, extraction)
	if err != nil {
		return err
	}
	set, err := s.Questions(ctx, extraction)
	if err != nil {
		return err
	}
	key := scoreKey{set: digestOf(set)}
	for _, v := range versions {
		if v.Status != record.StatusDone {
			continue
		}
		key.version = v.ID
		vs := VersionScores{Version: v.Label(), ID: v.ID, Status: v.Status, Settings: settingsOf(v.Config), Measures: map[string]float64{}}
		scored, err := s.score(ctx, v, set, key, vs)
		if err != nil {
			return err
		}
		s.cache.DeleteFunc(func(k scoreKey) bool { return k == key })
		if _, err := s.cache.Get(ctx, key, func() (VersionScores, error) { return scored, nil }); err != nil {
			return err
		}
	}
	return nil
}

// scoreFinished is the step after a run: a version whose extraction has
// a question set is scored on it at once, so its scoreboard and compare
// page read stored scores. A failure is logged; the scores are then made
// when first read.
func (pl *pipeline) scoreFinished(ctx context.Context, v record.Version) {
	set, err := pl.scores.Questions(ctx, v.Extraction)
	if err != nil || len(set.Questions) == 0 {
		return
	}
	if v, err = pl.store.Version(ctx, v.ID); err == nil {
		_, err = pl.scores.Version(ctx, v, set)
	}
	if err != nil && ctx.Err() == nil {
		pl.log.Warn("version not scored", "version_id", v.ID, "err", err)
	}
}

func digestOf(set eval.QuestionSet) string {
	b, _ := json.Marshal(set)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// settingsOf are the settings of a run a scoreboard tells versions apart
// by.
func settingsOf(c extract.Config) map[string]any {
	out := map[string]any{"strategy": string(c.Strategy)}
	if c.Strategy == "" {
		out["strategy"] = "import"
		return out
	}
	if !extract.Offline(c.Provider) {
		out["provider"], out["model"] = string(c.Provider), c.Model
	}
	if c.SchemaName != "" {
		out["schema"] = fmt.Sprintf("%s@%d", c.SchemaName, c.SchemaVersion)
	}
	out["chunk_size"], out["overlap"] = c.ChunkSize, c.Overlap
	if c.Strategy == extract.StrategyTuple {
		out["max_gleaning"] = c.MaxGleaning
	}
	if c.Embedder != "" {
		out["embedder"] = c.Embedder
	}
	return out
}

// graphMeasures measures a version's graph and run.
func (s *Scores) graphMeasures(ctx context.Context, v record.Version, vs *VersionScores) error {
	g, err := s.store.LoadGraph(ctx, v.ID, false)
	if err != nil {
		return err
	}
	m := vs.Measures
	m["nodes"], m["edges"] = float64(len(g.Nodes)), float64(len(g.Edges))
	specific := 0
	for _, e := range g.Edges {
		if e.Label != "" && e.Label != "related_to" {
			specific++
		}
	}
	if len(g.Edges) > 0 {
		m["specific_relations"] = round3(float64(specific) / float64(len(g.Edges)))
	}
	comps, largest := components(g)
	m["components"] = float64(comps)
	if len(g.Nodes) > 0 {
		m["largest_component"] = round3(float64(largest) / float64(len(g.Nodes)))
	}
	types := map[string]bool{}
	for _, n := range g.Nodes {
		types[n.Type] = true
	}
	m["types"] = float64(len(types))
	if r, ok := s.communities.storedCommunities(ctx, v); ok && len(r.Modularity) > 0 {
		m["modularity"] = round3(r.Modularity[0])
	}
	dups, err := s.curation.Duplicates(ctx, v)
	if err != nil {
		return err
	}
	m["duplicate_pairs"] = float64(len(dups))
	m["calls"] = float64(v.Calls - v.CachedCalls)
	m["tokens"] = float64(v.PromptTokens + v.OutputTokens - v.CachedPromptTokens - v.CachedOutputTokens)
	m["seconds"] = round3(v.Elapsed.Seconds())
	return nil
}

// components counts a graph's connected components (edges either way)
// and the nodes of the largest.
func components(g extract.Graph) (count, largest int) {
	parent := make(map[string]string, len(g.Nodes))
	find := func(x string) string {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, n := range g.Nodes {
		parent[n.Key] = n.Key
	}
	for _, e := range g.Edges {
		if _, ok := parent[e.Source]; !ok {
			continue
		}
		if _, ok := parent[e.Target]; !ok {
			continue
		}
		if a, b := find(e.Source), find(e.Target); a != b {
			parent[a] = b
		}
	}
	size := map[string]int{}
	for _, n := range g.Nodes {
		size[find(n.Key)]++
	}
	for _, n := range size {
		largest = max(largest, n)
	}
	return len(size), largest
}

// retrieve asks one question of a version in one mode, offline
// (retrieval and an extractive answer, no model), for its first k chunks
// and entities, as the scoreboard reads them.
func (s *Scores) retrieve(ctx context.Context, v record.Version, names func(int) string, q eval.Question, mode query.Mode, k int) (eval.Retrieved, error) {
	res, err := s.queries.Ask(ctx, v, QueryInput{Question: q.Question, Provider: extract.ProviderNone, Mode: mode, TopK: k, Keywords: KeywordsOffline})
	if err != nil {
		return eval.Retrieved{}, fmt.Errorf("question %s, mode %s: %w", q.ID, mode, err)
	}
	r := eval.Retrieved{}
	for _, c := range res.Chunks {
		r.Chunks = append(r.Chunks, eval.RetrievedChunk{Document: names(c.DocumentID), Text: c.Text})
	}
	for _, e := range res.Entities {
		r.Entities = append(r.Entities, e.Name)
	}
	if res.Answer != nil {
		r.Answer = res.Answer.Text
	}
	return r, nil
}

// EvidenceRecall scores a version on the questions of a set that have
// evidence, in each mode, at depth k, with the scoreboard's scorer: the
// mean recall (see eval.Question.Recall) and how many questions had
// evidence found among the first k chunks and entities.
func (s *Scores) EvidenceRecall(ctx context.Context, v record.Version, set eval.QuestionSet, modes []query.Mode, k int) (recall map[query.Mode]float64, found map[query.Mode]int, questions int, err error) {
	names := s.documents.Namer(ctx)
	recall, found = map[query.Mode]float64{}, map[query.Mode]int{}
	for _, q := range set.Questions {
		if q.Evidence() > 0 {
			questions++
		}
	}
	for _, mode := range modes {
		sum := 0.0
		for _, q := range set.Questions {
			if q.Evidence() == 0 {
				continue
			}
			r, err := s.retrieve(ctx, v, names, q, mode, k)
			if err != nil {
				return nil, nil, 0, err
			}
			n := eval.EvidenceFound(q, r, k)
			sum += q.Recall(n)
			if n > 0 {
				found[mode]++
			}
		}
		if questions > 0 {
			recall[mode] = sum / float64(questions)
		}
	}
	return recall, found, questions, nil
}

// questionMeasures asks each question of the set in every query mode,
// offline, and scores recall@k of the expected evidence and the share of
// answers holding an expected answer, over the questions that have each.
func (s *Scores) questionMeasures(ctx context.Context, v record.Version, set eval.QuestionSet, vs *VersionScores) error {
	names := s.documents.Namer(ctx)
	vs.PerQuestion = map[string][]float64{}
	maxK := ScoreK[len(ScoreK)-1]
	vs.Curves = map[query.Mode][]float64{}
	for _, mode := range query.Modes {
		sums, counts := map[string]float64{}, map[string]int{}
		curve, scored := make([]float64, maxK), 0
		for _, q := range set.Questions {
			r, err := s.retrieve(ctx, v, names, q, mode, maxK)
			if err != nil {
				return err
			}
			if q.Evidence() > 0 {
				scored++
				for d := 1; d <= maxK; d++ {
					curve[d-1] += q.Recall(eval.EvidenceFound(q, r, d))
				}
			}
			for _, k := range ScoreK {
				key := fmt.Sprintf("recall@%d.%s", k, mode)
				if q.Evidence() > 0 {
					// Asked for k, as a user asking for k is answered
					// (a mode's budgets depend on k).
					rk := r
					if k != maxK {
						if rk, err = s.retrieve(ctx, v, names, q, mode, k); err != nil {
							return err
						}
					}
					x := q.Recall(eval.EvidenceFound(q, rk, k))
					sums[key] += x
					counts[key]++
					vs.PerQuestion[key] = append(vs.PerQuestion[key], x)
				} else {
					vs.PerQuestion[key] = append(vs.PerQuestion[key], -1) // not scored
				}
			}
			key := "answers." + string(mode)
			if len(q.Answers) > 0 {
				x := 0.0
				if eval.AnswerHolds(q, r.Answer) {
					x = 1
				}
				sums[key] += x
				counts[key]++
				vs.PerQuestion[key] = append(vs.PerQuestion[key], x)
			} else {
				vs.PerQuestion[key] = append(vs.PerQuestion[key], -1)
			}
		}
		for key, n := range counts {
			vs.Measures[key] = round3(sums[key] / float64(n))
		}
		if scored > 0 {
			for d := range curve {
				curve[d] = round3(curve[d] / float64(scored))
			}
			vs.Curves[mode] = curve
		}
	}
	return nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// SortedSettings lists a settings map as "key=value" in key order.
func SortedSettings(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, m[k])
	}
	return strings.Join(parts, " ")
}

// ScoreDiff is one measure of two versions side by side: their values,
// the difference b−a and, for a measure scored per question, the paired
// bootstrap of the difference.
type ScoreDiff struct {
	Measure Measure      `json:"measure"`
	A       *float64     `json:"a"`
	B       *float64     `json:"b"`
	Diff    *float64     `json:"diff"`
	Paired  *eval.Paired `json:"paired,omitempty"`
}

// BootstrapResamples is how many resamples a paired comparison draws.
const BootstrapResamples = 2000

// Compare scores two versions on one question set (b's extraction's, else
// a's: setOf names it) and lists the table's measures side by side: the question measures
// with a paired bootstrap over the questions, so a difference is called
// significant only when its 95% interval excludes 0.
func (s *Scores) Compare(ctx context.Context, a, b record.Version) (diffs []ScoreDiff, questions int, setOf string, err error) {
	setOf = b.Extraction
	set, err := s.Questions(ctx, b.Extraction)
	if err == nil && len(set.Questions) == 0 && a.Extraction != b.Extraction {
		setOf = a.Extraction
		set, err = s.Questions(ctx, a.Extraction)
	}
	if err != nil {
		return nil, 0, "", err
	}
	sa, err := s.Version(ctx, a, set)
	if err != nil {
		return nil, 0, "", err
	}
	sb, err := s.Version(ctx, b, set)
	if err != nil {
		return nil, 0, "", err
	}
	for _, m := range TableMeasures(Measures(len(set.Questions) > 0)) {
		d := ScoreDiff{Measure: m}
		x, okA := sa.Measures[m.Key]
		y, okB := sb.Measures[m.Key]
		if okA {
			d.A = &x
		}
		if okB {
			d.B = &y
		}
		if okA && okB {
			diff := round3(y - x)
			d.Diff = &diff
			if pa, pb := sa.PerQuestion[m.Key], sb.PerQuestion[m.Key]; len(pa) > 0 && len(pb) > 0 {
				p := eval.PairedBootstrap(pa, pb, BootstrapResamples, uint64(a.ID)<<32|uint64(b.ID))
				d.Paired = &p
			}
		}
		diffs = append(diffs, d)
	}
	return diffs, len(set.Questions), setOf, nil
}

// withReference adds the reference measures of v, scored against ref as
// the compare page scores a version against the reference (see
// Comparisons.Compare), to a copy of vs.
func (s *Scores) withReference(ctx context.Context, ref, v record.Version, vs VersionScores) (VersionScores, error) {
	c, err := s.comparisons.Compare(ctx, ref.ID, v.ID, diff.Options{})
	if err != nil {
		return vs, err
	}
	if c.Result.Score == nil {
		return vs, nil
	}
	m := make(map[string]float64, len(vs.Measures)+len(ReferenceMeasures))
	for k, x := range vs.Measures {
		m[k] = x
	}
	sc := c.Result.Score
	m["reference.nodes_f1"], m["reference.edges_f1"] = round3(sc.Nodes.F1), round3(sc.Edges.F1)
	m["reference.nodes_precision"], m["reference.nodes_recall"] = round3(sc.Nodes.Precision), round3(sc.Nodes.Recall)
	m["reference.edges_precision"], m["reference.edges_recall"] = round3(sc.Edges.Precision), round3(sc.Edges.Recall)
	vs.Measures = m
	return vs, nil
}
