package app

import (
	"context"
	_ "embed"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
)

// SampleExtraction names the extraction made from the sample document.
const SampleExtraction = "sample"

//go:embed sample/christmas_carol_stave_one.txt
var sampleText []byte

// sampleQuestions are ten questions on the sample, with the passages
// that answer them: the sample extraction's question set, so its
// scoreboard shows recall and answers at once.
//
//go:embed sample/christmas_carol_questions.json
var sampleQuestions []byte

// SampleName is the sample document's name.
const SampleName = "christmas_carol_stave_one.txt"

// SeedSample adds the sample document to an empty database and extracts it
// twice, with two chunk sizes, so a new user sees a graph and a comparison
// at once; the extraction gets ten questions on the sample, so its
// scoreboard scores both. It does nothing when the database holds any
// document.
func (a *App) SeedSample(ctx context.Context) (bool, error) {
	c, err := a.store.Counts(ctx)
	if err != nil {
		return false, err
	}
	if c.Documents > 0 || c.Extractions > 0 {
		return false, nil
	}
	d, err := extract.ReadDocument(SampleName, sampleText, extract.DefaultMaxBytes)
	if err != nil {
		return false, err
	}
	d, _, err = a.store.AddDocument(ctx, d)
	if err != nil {
		return false, err
	}
	first := extract.DefaultConfig()
	second := extract.DefaultConfig()
	second.ChunkSize, second.Overlap = 600, 0
	for i, cfg := range []extract.Config{first, second} {
		note := "sample: default settings"
		if i == 1 {
			note = "sample: smaller chunks, no overlap"
		}
		v, err := a.store.NewVersion(ctx, SampleExtraction, cfg, []int{d.ID}, note)
		if err != nil {
			return false, err
		}
		if i == 0 {
			// The questions before any run ends, so each is scored then.
			set, err := eval.ReadQuestions("christmas_carol_questions.json", sampleQuestions)
			if err != nil {
				return false, err
			}
			if err := a.Scores.SetQuestions(ctx, SampleExtraction, set); err != nil {
				return false, err
			}
		}
		a.Runs.Start(v)
	}
	a.log.Info("added the sample document and started two sample extractions", "document_id", d.ID)
	return true, nil
}
