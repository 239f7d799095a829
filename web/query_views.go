package web

// QueryPage is the question page of one extraction version: the keywords
// of the question, the ranked context retrieved from the graph and, with a
// model provider, an answer citing the context's reference ids.
type QueryPage struct {
	Version VersionRow
	// Versions are the finished versions a question may be asked of
	// instead (the newest first), this one selected.
	Versions  []Option
	Action    string // the form's URL
	GraphURL  string
	APIURL    string // the same query as JSON; empty without a question
	Question  string
	Providers []Option
	// Modes are the query modes (query.Modes).
	Modes []Option
	// TopK is the number of items of each part.
	TopK int
	// AsOf is the date asked as of (YYYY-MM-DD); empty for now.
	AsOf string
	// Embedder is the model of the version's vectors; empty without any.
	Embedder      string
	ModelKeywords bool
	High, Low     []string
	KeywordSource string // "offline" or "model"
	Entities      []QueryEntity
	Relations     []QueryRelation
	Chunks        []QueryChunk
	Answer        string
	AnswerBy      string // provider and model
	Cited         []QueryRef
	// Note says why there is no answer, or what went wrong.
	Note string
	// Context is the context as the model sees it.
	Context string
}

// QueryEntity is a retrieved node.
type QueryEntity struct {
	Ref, Name, Type, Description, Score string
	Mentions                            int
	URL                                 string
}

// QueryRelation is a retrieved edge.
type QueryRelation struct {
	Ref, Source, Label, Target, Keywords, Description, Score string
	URL                                                      string
}

// QueryChunk is a retrieved chunk. Mentions lists the references of the
// entities and relations it mentions.
type QueryChunk struct {
	Ref, Where, URL, Snippet, Score, Mentions string
}

// QueryRef is a reference an answer cites.
type QueryRef struct {
	Ref, Text, URL string
}
