package extract

import "testing"

func TestConfig_Validate(t *testing.T) {
	ok := DefaultConfig()
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"OverlapNotBelowSize", func(c *Config) { c.ChunkSize, c.Overlap = 100, 100 }, "the overlap must be smaller than the chunk size"},
		{"NegativeOverlap", func(c *Config) { c.Overlap = -1 }, "the overlap must not be negative"},
		{"ChunkTooSmall", func(c *Config) { c.ChunkSize = 10 }, "chunk size must be a number from 50 to 1000000"},
		{"ChunkTooLarge", func(c *Config) { c.ChunkSize = 2_000_000 }, "chunk size must be a number from 50 to 1000000"},
		{"ConcurrencyTooHigh", func(c *Config) { c.Concurrency = 1000 }, "concurrency must be a number from 1 to 64"},
		{"ConcurrencyZero", func(c *Config) { c.Concurrency = 0 }, "concurrency must be a number from 1 to 64"},
		{"Gleaning", func(c *Config) { c.MaxGleaning = 6 }, "max gleaning must be a number from 0 to 5"},
		{"Fragments", func(c *Config) { c.MaxFragments = 0 }, "max fragments must be a number from 1 to 1000"},
		{"Strategy", func(c *Config) { c.Strategy = "magic" }, `unknown strategy "magic" (use nlp, tuple, schema or dialogue)`},
		{"Provider", func(c *Config) { c.Provider = "acme" }, `unknown provider "acme" (use gemini, openai or none)`},
		{"Reports", func(c *Config) { c.Reports = "llm" }, `unknown reports "llm" (use offline or model)`},
		{"MaxReports", func(c *Config) { c.MaxReports = 1001 }, "max reports must be a number from 0 to 1000"},
		// The first problem wins, in a fixed order.
		{"SeveralAtOnce", func(c *Config) { c.ChunkSize, c.Overlap, c.Concurrency = 10, 20, 1000 }, "chunk size must be a number from 50 to 1000000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if KindOf(err) != KindInvalid || MessageOf(err) != tc.want {
				t.Fatalf("got %v (kind %v), want invalid %q", err, KindOf(err), tc.want)
			}
		})
	}
}

func TestConfig_WithDefaults(t *testing.T) {
	c := Config{Strategy: "", Provider: "gemini", Model: "m", ChunkSize: 500, Prompts: map[string]string{"a": "b"}}.WithDefaults()
	d := DefaultConfig()
	if c.Strategy != StrategyNLP || c.Provider != "none" || c.Model != "" || c.Prompts != nil {
		t.Fatalf("nlp keeps no provider, model or prompts: %+v", c)
	}
	if c.Concurrency != d.Concurrency || c.MaxFragments != d.MaxFragments || c.ChunkSize != 500 {
		t.Fatalf("defaults not filled or chosen values changed: %+v", c)
	}
	// An nlp run keeps the provider that writes its community reports.
	if r := (Config{Strategy: StrategyNLP, Provider: "gemini", Model: "m", Reports: ReportsModel}).WithDefaults(); r.Provider != "gemini" || r.Model != "m" {
		t.Fatalf("nlp with model reports lost its provider: %+v", r)
	}
	tuple := Config{Strategy: StrategyTuple, Provider: "openai", Concurrency: 9}.WithDefaults()
	if tuple.Provider != "openai" || tuple.Concurrency != 9 {
		t.Fatalf("chosen values changed: %+v", tuple)
	}
}
