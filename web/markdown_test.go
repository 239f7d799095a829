package web

import "testing"

func TestMarkdownHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"*Extractive answer: no model was asked.*\n\n- Scrooge was Marley's partner [C1].\n- Fan is his sister.\n\n### References\n1. [C1] carol.txt",
			"<p><em>Extractive answer: no model was asked.</em></p><ul><li>Scrooge was Marley&#39;s partner [C1].</li><li>Fan is his sister.</li></ul><h4>References</h4><ol><li>[C1] carol.txt</li></ol>"},
		{"<script>alert(1)</script> **bold** and `x<y`", "<p>&lt;script&gt;alert(1)&lt;/script&gt; <strong>bold</strong> and <code>x&lt;y</code></p>"},
		{"a * b * c\nnext line", "<p>a * b * c<br>next line</p>"},
		{"", ""},
	} {
		if got := markdownHTML(c.in); got != c.want {
			t.Errorf("markdownHTML(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
