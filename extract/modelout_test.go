package extract

import "testing"

func TestStripReasoning(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"None", `{"entities": []}`, `{"entities": []}`},
		{"Think", "<think>I need {braces} here</think>\n{\"a\": 1}", "\n{\"a\": 1}"},
		{"Upper", "<THINK>x</THINK>ok", "ok"},
		{"Thinking", "<thinking>\nmulti\nline\n</thinking>answer", "answer"},
		{"Unclosed", "answer first<think>never closed {", "answer first"},
		{"Two", "<think>a</think>x<think>b</think>y", "xy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripReasoning(tt.in); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
