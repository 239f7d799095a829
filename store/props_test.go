package store

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// jsonProps is what decodeProps answered before it had its own parser.
func jsonProps(s string) map[string]any {
	if s == "" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}

var propCases = []string{
	``, `{}`, `null`, `[]`, `{"category":"PER","type_counts":{"Person":2}}`, ` { "a" : 1 , "b" : [1,2] } `,
	`{"a":-0.5e+3,"b":true,"c":false,"d":null,"e":{"f":{"g":{"h":{"i":{"j":1}}}}}}`, `{"a":01}`, `{"a":1.}`,
	`{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":1e999}`, `{"a":"caf\u00e9"}`, `{"a":"café"}`, `{"a":"x\"y"}`,
	`{"a":1,"a":2}`, `{"a":1,}`, `{"a" 1}`, `{"a":1}x`, `{"a":tru}`, "{\"a\":\"\x01\"}", `{"a":"\xff"}`, `{`,
	`{"fragments_dropped":8}`, `{"valid_at":"2024-01-02T00:00:00Z","history":[{"value":"x"}]}`,
}

// decodeProps answers as encoding/json does, for every case it parses
// itself and every one it hands over.
func TestDecodeProps_AsJSON(t *testing.T) {
	for _, s := range propCases {
		if got, want := decodeProps(s), jsonProps(s); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %#v, want %#v", s, got, want)
		}
	}
}

func FuzzDecodeProps(f *testing.F) {
	for _, s := range propCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := decodeProps(s), jsonProps(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v, want %#v", s, got, want)
		}
	})
}

// keptProps is jsonProps keeping only keys, nil when none is left.
func keptProps(s string, keys []string) map[string]any {
	m := jsonProps(s)
	for k := range m {
		if !slices.Contains(keys, k) {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

var keptKeys = []string{"valid_at", "history", "a"}

// A read that keeps some properties answers as decoding all of them and
// dropping the rest, rows that never name a kept key included.
func TestPropKeys_AsJSON(t *testing.T) {
	pk := newPropKeys(keptKeys)
	for _, s := range append(propCases, `{"valid\u005fat":"x"}`, `{"note":"the \"history\" of it"}`, `{"b":{"a":1}}`) {
		if got, want := pk.decode(s), keptProps(s, keptKeys); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %#v, want %#v", s, got, want)
		}
	}
	if got := newPropKeys(nil).decode(`{"b":1}`); !reflect.DeepEqual(got, map[string]any{"b": 1.0}) {
		t.Errorf("no key set: %#v, want every property", got)
	}
}

func FuzzPropKeys(f *testing.F) {
	for _, s := range propCases {
		f.Add(s)
	}
	pk := newPropKeys(keptKeys)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := pk.decode(s), keptProps(s, keptKeys); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v, want %#v", s, got, want)
		}
	})
}

func BenchmarkDecodeProps(b *testing.B) {
	for b.Loop() {
		decodeProps(`{"category":"PER","type_counts":{"Person":2,"Location":1}}`)
	}
}

func BenchmarkDecodePropsJSON(b *testing.B) {
	for b.Loop() {
		jsonProps(`{"category":"PER","type_counts":{"Person":2,"Location":1}}`)
	}
}
