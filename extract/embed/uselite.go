package embed

import (
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/embed/uselite"
)

// USELite is the default embedder: Universal Sentence Encoder Lite run
// offline (package uselite), with the hashed Offline embedder for the
// texts its English vocabulary cannot serve (Chinese, Japanese, Korean),
// whose vectors go to an index of their own.
type USELite struct{ uselite.Encoder }

var _ extract.SplitEmbedder = USELite{}

// Serves implements extract.SplitEmbedder.
func (USELite) Serves(text string) bool { return uselite.Serves(text) }

// Fallback implements extract.SplitEmbedder.
func (USELite) Fallback() extract.Embedder { return Offline{} }
