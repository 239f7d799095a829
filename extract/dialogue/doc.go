// Package dialogue turns conversations into a consolidated memory graph.
//
// A dialogue is read from JSON (see Parse), cut into user+assistant
// segments (see Segments), and each segment becomes a list of memory-graph
// operations (Ops) proposed either by a model (NewLLM) or by a simple
// offline extractor (NewOffline). Operations apply in order to a Memory,
// which keeps every earlier attribute value and an operation log from which
// the graph can be rebuilt at any turn (Rebuild).
//
// # Canonical dialogue JSON
//
//	{
//	  "title": "Caroline and Melanie",
//	  "sessions": [
//	    {
//	      "id": "session_1",
//	      "start": "2023-05-08T13:56:00Z",
//	      "turns": [
//	        {"speaker": "Caroline", "role": "user", "text": "Hey Mel!"},
//	        {"speaker": "Melanie", "role": "assistant", "text": "Hi!"}
//	      ]
//	    }
//	  ]
//	}
//
// "start" is an RFC 3339 time or a date (YYYY-MM-DD); it may be empty.
// "role" is "user", "assistant" or empty; a turn needs a speaker, a role or
// both. When roles are missing, the first named speaker of the dialogue
// counts as the user and every other speaker as the assistant.
//
// Parse also imports three public shapes, detected from their keys:
//
//   - LoCoMo: an object with speaker_a, speaker_b, session_N (lists of
//     {speaker, dia_id, text}) and session_N_date_time ("1:56 pm on 8 May,
//     2023"); or a list of {"sample_id", "conversation": {...}} records.
//     Image turns keep their caption as "[image: caption]" after the text.
//   - MemoryBank: an object keyed by user name whose values hold "name" and
//     "history": {"YYYY-MM-DD": [{"query", "response"}]}; one dialogue per
//     user, one session per date.
//   - LongMemEval: an object (or a list of objects) with haystack_sessions
//     (lists of {role, content}), haystack_dates and, optionally,
//     haystack_session_ids and question_id.
//
// Malformed input is refused with an *extract.Error of kind invalid whose
// message starts with the JSON path of the bad field, for example
// "sessions[2].turns[5].text: missing".
//
// # Memory layout
//
// Node ids are slash paths under four roots: /User, /Assistant, /Events and
// /Knowledge. Events live at /Events/<Topic>/<Summary_YYYYMMDD> and
// knowledge at /Knowledge/<EntityType>/<Category>/<Name>. The structure
// nodes listed in StructureNodes exist before the first turn.
package dialogue
