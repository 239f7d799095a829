// Package extract is kgstudio's domain and pipeline: how text becomes a
// knowledge graph. It imports nothing else of kgstudio, so it can be used
// as a library.
//
// The domain:
//
//   - A Document is a source (text, Markdown, a CSV table or a dialogue
//     JSON), read by ReadDocument: valid UTF-8, no byte-order mark, bounded.
//   - A Chunk is a span of a document (Split: sentence-aligned, with
//     overlap); a ChunkRef names it by document ID and index.
//   - A Graph holds Nodes (Key, Name, Type, Description, Properties and
//     Mentions back into chunks) and Edges (Source, Label, Target, Weight).
//     NodeKey normalises a name into a key; MergeGraph folds one graph into
//     another by key, keeping a bounded number of description fragments.
//   - A Config is everything that shaped one extraction version: strategy,
//     provider and model, schema, chunking, concurrency, gleaning, prompts.
//     WithDefaults fills it and Validate checks it, once for every entry
//     point.
//   - An Error carries a Kind (invalid, not found, conflict, unavailable,
//     internal) and a message safe to show.
//
// The pipeline (KAG's reader -> splitter -> extractor -> writer):
//
//	docs --Plan--> []Job --RunJobs--> Extractor.Extract --> Sink.WriteChunk
//
// Plan splits documents into jobs; RunJobs extracts them with bounded
// concurrency, writes each ChunkResult (graph, model calls, parse failures,
// dialogue operations) through a Sink in job order, skips the chunks the
// sink already holds (resume after a crash) and reports Progress. Run is
// both in one call.
//
// The strategies are Extractors in sub-packages: nlp (offline NER and
// patterns), tuple (LightRAG-style open extraction with gleaning), kag
// (schema-constrained, with the schema domain in schema), csvmap (rows
// mapped through a schema) and dialogue (conversations as memory-graph
// operations). llm is the model-provider contract; diff compares two
// graphs; curate finds duplicate candidates and merges nodes; eval scores
// against gold sets; export writes other formats and reads JSON and GraphML
// back; query retrieves context and answers questions over a graph.
package extract
