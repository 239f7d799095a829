package extract

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
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
	// MaxPromptSteps bounds the work of one rendering: every pass of a
	// range body costs the nodes of that body, and a rendering that would
	// cost more stops with an error. A default prompt over a chunk costs
	// a few hundred.
	MaxPromptSteps = 2_000_000
)

// rangeFunc is the function every range of a parsed prompt pipes its
// list through (see guardRanges); a prompt cannot name it.
const rangeFunc = "_kgstudio_range"

// ParsePromptTemplate parses a prompt template and refuses what a prompt
// has no use for and what could exhaust the server: a source over
// MaxTemplateBytes; function calls (printf builds strings of any width
// before anything is written; call, index and slice reach into data);
// template definitions and calls (recursion); ranges over anything but
// the data's fields (a range over a number loops as often as it says);
// ranges nested deeper than two; assignments to a variable declared
// before ({{$x = ...}} changes the outer variable at run time, where a
// check by scope cannot follow it). Fields, variables, if, with, range over
// fields and comparisons of fields with eq/ne/not/and/or stay allowed.
//
// What the checks cannot see, the rendering enforces: every range goes
// through a guard that accepts only a list, array or map and charges its
// length times its body's size to the rendering's step budget
// (MaxPromptSteps), so no accepted template renders for long.
func ParsePromptTemplate(name, text string) (*template.Template, error) {
	if len(text) > MaxTemplateBytes {
		return nil, Errorf(KindInvalid, "prompt %s is %d bytes: at most %d", name, len(text), MaxTemplateBytes)
	}
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, Wrap(KindInvalid, err, "prompt %s does not parse: %v", name, err)
	}
	for _, tt := range t.Templates() {
		if tt.Name() != name {
			return nil, Errorf(KindInvalid, "prompt %s defines template %q: a prompt may not define templates", name, tt.Name())
		}
	}
	if t.Tree != nil {
		if err := checkNode(t.Tree.Root, 0, scope{dotData: true, vars: map[string]bool{}}); err != nil {
			return nil, Wrap(KindInvalid, err, "prompt %s is refused: %v", name, err)
		}
		guardRanges(t.Tree.Root)
	}
	t.Funcs(template.FuncMap{rangeFunc: rangeGuard(new(int))})
	return t, nil
}

// guardRanges pipes the list of every range under n through rangeFunc,
// with the size of the range's body as its argument.
func guardRanges(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			guardRanges(c)
		}
	case *parse.IfNode:
		guardRanges(n.List)
		guardRanges(n.ElseList)
	case *parse.WithNode:
		guardRanges(n.List)
		guardRanges(n.ElseList)
	case *parse.RangeNode:
		guardRanges(n.List)
		guardRanges(n.ElseList)
		size := nodeCount(n.List) + 1
		n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pipe.Pos, Args: []parse.Node{
			parse.NewIdentifier(rangeFunc).SetPos(n.Pipe.Pos),
			&parse.NumberNode{NodeType: parse.NodeNumber, Pos: n.Pipe.Pos, IsInt: true, Int64: int64(size), Text: strconv.Itoa(size)},
		}})
	}
}

// nodeCount is the number of nodes under n, ranges counted with their
// bodies once (a body's passes are charged when it runs).
func nodeCount(n parse.Node) int {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return 0
		}
		c := 0
		for _, x := range n.Nodes {
			c += nodeCount(x)
		}
		return c
	case *parse.IfNode:
		return 1 + nodeCount(n.List) + nodeCount(n.ElseList)
	case *parse.WithNode:
		return 1 + nodeCount(n.List) + nodeCount(n.ElseList)
	case *parse.RangeNode:
		return 1 + nodeCount(n.ElseList)
	case nil:
		return 0
	}
	return 1
}

// errPromptSteps stops a rendering past MaxPromptSteps.
var errPromptSteps = errors.New("prompt renders too long")

// rangeGuard is rangeFunc for one rendering: the list goes on when it is
// a list, array or map whose passes fit in what is left of *spent's
// budget.
func rangeGuard(spent *int) func(int, any) (any, error) {
	return func(body int, v any) (any, error) {
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Slice, reflect.Array, reflect.Map:
		case reflect.Invalid:
			return v, nil // nil: no pass
		default:
			return nil, fmt.Errorf("range over %T: a prompt may range over the data's lists only", v)
		}
		*spent += rv.Len() * max(body, 1)
		if *spent > MaxPromptSteps {
			return nil, errPromptSteps
		}
		return v, nil
	}
}

// allowedFuncs are the template functions a prompt may call: they compare
// or combine values already there.
var allowedFuncs = []string{"eq", "ne", "not", "and", "or", "len"}

// scope is what a point of a template knows of its values: whether dot
// holds the data (or a part of it) and which variables do. A range may
// only go over the data, so no template loops a number of times it makes
// up ({{range 1000000}}, or a variable or dot set to such a number).
type scope struct {
	dotData bool
	vars    map[string]bool // variable -> holds the data or a part of it
}

func (s scope) child(dotData bool) scope {
	vars := make(map[string]bool, len(s.vars))
	for k, v := range s.vars {
		vars[k] = v
	}
	return scope{dotData: dotData, vars: vars}
}

// isData reports whether a pipeline yields the data or a part of it: a
// field, a variable that holds data (or a field of one), or a dot that
// holds data, with no command after it.
func (s scope) isData(p *parse.PipeNode) bool {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode:
		return true
	case *parse.VariableNode:
		return len(a.Ident) > 0 && (a.Ident[0] == "$" || s.vars[a.Ident[0]])
	case *parse.DotNode:
		return s.dotData
	}
	return false
}

// declare records the variables a pipeline declares: they hold data when
// the pipeline yields it.
func (s scope) declare(p *parse.PipeNode, data bool) {
	if p == nil {
		return
	}
	for _, v := range p.Decl {
		if len(v.Ident) > 0 {
			s.vars[v.Ident[0]] = data
		}
	}
}

func checkNode(n parse.Node, ranges int, sc scope) error {
	switch n := n.(type) {
	case nil:
		return nil
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkNode(c, ranges, sc); err != nil {
				return err
			}
		}
	case *parse.TextNode, *parse.CommentNode:
	case *parse.ActionNode:
		sc.declare(n.Pipe, sc.isData(n.Pipe))
		return checkPipe(n.Pipe)
	case *parse.IfNode:
		return checkBranch(&n.BranchNode, ranges, sc.child(sc.dotData), sc.child(sc.dotData))
	case *parse.WithNode:
		body := sc.child(sc.isData(n.Pipe))
		body.declare(n.Pipe, body.dotData)
		return checkBranch(&n.BranchNode, ranges, body, sc.child(sc.dotData))
	case *parse.RangeNode:
		if ranges+1 > maxRangeDepth {
			return fmt.Errorf("ranges nest deeper than %d", maxRangeDepth)
		}
		if !sc.isData(n.Pipe) {
			return fmt.Errorf("range %s: a prompt may range over the data's fields only", n.Pipe)
		}
		body := sc.child(true)
		body.declare(n.Pipe, true) // the element
		if len(n.Pipe.Decl) == 2 {
			// The index or key is no list of the data's: {{range $i}}
			// would loop as often as it says.
			body.vars[n.Pipe.Decl[0].Ident[0]] = false
		}
		return checkBranch(&n.BranchNode, ranges+1, body, sc.child(sc.dotData))
	case *parse.TemplateNode:
		return fmt.Errorf("{{template %q}}: a prompt may not call templates", n.Name)
	case *parse.BreakNode, *parse.ContinueNode:
	default:
		return fmt.Errorf("%s: not allowed in a prompt", n)
	}
	return nil
}

func checkBranch(b *parse.BranchNode, ranges int, body, els scope) error {
	if err := checkPipe(b.Pipe); err != nil {
		return err
	}
	if err := checkNode(b.List, ranges, body); err != nil {
		return err
	}
	return checkNode(b.ElseList, ranges, els)
}

func checkPipe(p *parse.PipeNode) error {
	if p == nil {
		return nil
	}
	if p.IsAssign {
		return fmt.Errorf("%s: a prompt may not assign to a variable declared before (declare a new one with :=)", p)
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
	// Each rendering has a step budget of its own.
	t, err := t.Clone()
	if err != nil {
		return "", Wrap(KindInvalid, err, "prompt %s does not render", t.Name())
	}
	t.Funcs(template.FuncMap{rangeFunc: rangeGuard(new(int))})
	if err := t.Execute(w, data); err != nil {
		if errors.Is(err, errPromptTooLong) {
			return "", Errorf(KindInvalid, "prompt %s renders to more than %d bytes", t.Name(), MaxPromptBytes)
		}
		if errors.Is(err, errPromptSteps) {
			return "", Errorf(KindInvalid, "prompt %s takes more than %d steps to render: its ranges go over too much", t.Name(), MaxPromptSteps)
		}
		return "", Wrap(KindInvalid, err, "prompt %s does not render: %v", t.Name(), err)
	}
	return w.b.String(), nil
}
