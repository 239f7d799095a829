package extract

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"
)

// Limits of a user-supplied prompt template (a run's prompt overrides):
// its source, its rendered output and how deep ranges nest. A template
// is data from a request, so it must not be able to make the server build
// a prompt of gigabytes or loop without end.
const (
	MaxTemplateBytes = 64 << 10
	MaxPromptBytes   = 1 << 20
	maxRangeDepth    = 2
)

// ParsePromptTemplate parses a prompt template and refuses what a prompt
// has no use for and what could exhaust the server: a source over
// MaxTemplateBytes; function calls (printf builds strings of any width
// before anything is written; call, index and slice reach into data);
// template definitions and calls (recursion); ranges over anything but
// the data's fields (a range over a number loops as often as it says);
// ranges nested deeper than two. Fields, variables, if, with, range over
// fields and comparisons of fields with eq/ne/not/and/or stay allowed.
func ParsePromptTemplate(name, text string) (*template.Template, error) {
	if len(text) > MaxTemplateBytes {
		return nil, Errorf(KindInvalid, "prompt %s is %d bytes: at most %d", name, len(text), MaxTemplateBytes)
	}
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, Wrap(KindInvalid, err, "prompt %s does not parse", name)
	}
	for _, tt := range t.Templates() {
		if tt.Name() != name {
			return nil, Errorf(KindInvalid, "prompt %s defines template %q: a prompt may not define templates", name, tt.Name())
		}
	}
	if t.Tree != nil {
		if err := checkNode(t.Tree.Root, 0); err != nil {
			return nil, Wrap(KindInvalid, err, "prompt %s is refused", name)
		}
	}
	return t, nil
}

// allowedFuncs are the template functions a prompt may call: they compare
// or combine values already there.
var allowedFuncs = []string{"eq", "ne", "not", "and", "or", "len"}

func checkNode(n parse.Node, ranges int) error {
	switch n := n.(type) {
	case nil:
		return nil
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkNode(c, ranges); err != nil {
				return err
			}
		}
	case *parse.TextNode, *parse.CommentNode:
	case *parse.ActionNode:
		return checkPipe(n.Pipe)
	case *parse.IfNode:
		return checkBranch(&n.BranchNode, ranges)
	case *parse.WithNode:
		return checkBranch(&n.BranchNode, ranges)
	case *parse.RangeNode:
		if ranges+1 > maxRangeDepth {
			return fmt.Errorf("ranges nest deeper than %d", maxRangeDepth)
		}
		if err := checkRangeOver(n.Pipe); err != nil {
			return err
		}
		return checkBranch(&n.BranchNode, ranges+1)
	case *parse.TemplateNode:
		return fmt.Errorf("{{template %q}}: a prompt may not call templates", n.Name)
	case *parse.BreakNode, *parse.ContinueNode:
	default:
		return fmt.Errorf("%s: not allowed in a prompt", n)
	}
	return nil
}

func checkBranch(b *parse.BranchNode, ranges int) error {
	if err := checkPipe(b.Pipe); err != nil {
		return err
	}
	if err := checkNode(b.List, ranges); err != nil {
		return err
	}
	return checkNode(b.ElseList, ranges)
}

func checkPipe(p *parse.PipeNode) error {
	if p == nil {
		return nil
	}
	for _, c := range p.Cmds {
		for i, a := range c.Args {
			if id, ok := a.(*parse.IdentifierNode); ok {
				if i != 0 || !slices.Contains(allowedFuncs, id.Ident) {
					return fmt.Errorf("%s: a prompt may call only %s", c, strings.Join(allowedFuncs, ", "))
				}
				continue
			}
			switch a := a.(type) {
			case *parse.PipeNode:
				if err := checkPipe(a); err != nil {
					return err
				}
			case *parse.ChainNode:
				if pn, ok := a.Node.(*parse.PipeNode); ok {
					if err := checkPipe(pn); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// checkRangeOver allows a range over the data only: a field, a variable
// or the dot, with no command after it.
func checkRangeOver(p *parse.PipeNode) error {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return fmt.Errorf("range %s: a prompt may range over the data's fields only", p)
	}
	switch p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode, *parse.VariableNode, *parse.DotNode:
		return nil
	}
	return fmt.Errorf("range %s: a prompt may range over the data's fields only", p)
}

// errPromptTooLong stops a template's execution at MaxPromptBytes.
var errPromptTooLong = errors.New("prompt too long")

type boundedWriter struct {
	b   strings.Builder
	max int
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, errPromptTooLong
	}
	return w.b.Write(p)
}

// RenderPrompt executes a prompt template with data into at most
// MaxPromptBytes; a longer prompt is a KindInvalid error.
func RenderPrompt(t *template.Template, data any) (string, error) {
	w := &boundedWriter{max: MaxPromptBytes}
	if err := t.Execute(w, data); err != nil {
		if errors.Is(err, errPromptTooLong) {
			return "", Errorf(KindInvalid, "prompt %s renders to more than %d bytes", t.Name(), MaxPromptBytes)
		}
		return "", Wrap(KindInvalid, err, "prompt %s does not render", t.Name())
	}
	return w.b.String(), nil
}
