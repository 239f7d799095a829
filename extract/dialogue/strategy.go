package dialogue

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/llm"
)

// Proposal is what an extractor proposes for one segment: the operations,
// the model calls made and the parts of the output it could not use.
type Proposal struct {
	Ops      Ops
	Calls    []extract.CallRecord
	Failures []extract.ParseFailure
	// Repairs counts the fixes the model's JSON needed, per kind.
	Repairs map[string]int
}

// SegmentExtractor proposes memory operations for one segment, given the
// node ids the memory holds before it. Implementations return
// *extract.Error of kind unavailable when the model cannot be reached;
// unusable model output is reported in Proposal.Failures, not as an error.
type SegmentExtractor interface {
	ExtractSegment(ctx context.Context, seg Segment, known Known) (Proposal, error)
}

// Known is what a segment extractor may ask of the memory so far: whether
// a node id exists, and every id in order (a model's prompt lists them). A
// Memory is one; nil knows none. Asking Has costs no copy of the ids, so a
// turn's cost does not grow with the memory (the offline extractor asks
// only that).
type Known interface {
	Has(id string) bool
	IDs() []string
}

// IDList is a Known of a list of ids.
type IDList []string

// Has implements Known.
func (l IDList) Has(id string) bool { return slices.Contains(l, id) }

// IDs implements Known.
func (l IDList) IDs() []string { return l }

// idsOf is known's ids (none for nil).
func idsOf(known Known) []string {
	if known == nil {
		return nil
	}
	return known.IDs()
}

// LLM is the model-backed dialogue strategy: one call per segment, with the
// answer constrained by ResponseSchema.
type LLM struct {
	client llm.Client
	cfg    extract.Config
	system string
}

var _ SegmentExtractor = (*LLM)(nil)

// NewLLM returns the model-backed extractor. cfg.Temperature is passed on;
// cfg.Prompts[PromptKey], when set, replaces the system prompt.
func NewLLM(client llm.Client, cfg extract.Config) *LLM {
	sys := defaultSystemPrompt
	if p := cfg.Prompts[PromptKey]; p != "" {
		sys = p
	}
	return &LLM{client: client, cfg: cfg, system: sys}
}

// ExtractSegment makes one model call for seg and parses its answer.
func (l *LLM) ExtractSegment(ctx context.Context, seg Segment, known Known) (Proposal, error) {
	user, err := UserPrompt(seg, idsOf(known))
	if err != nil {
		return Proposal{}, extract.Wrap(extract.KindInternal, err, "render dialogue prompt")
	}
	resp, err := l.client.Complete(ctx, llm.Request{
		Messages: []llm.Message{
			{Role: "system", Content: l.system},
			{Role: "user", Content: user},
		},
		Temperature: l.cfg.Temperature,
		JSONSchema:  ResponseSchema(),
		Purpose:     "extract",
	})
	if err != nil {
		return Proposal{}, fmt.Errorf("dialogue segment %d: %w", seg.Index, err)
	}
	rec := resp.Record
	if rec.Purpose == "" {
		rec.Purpose = "extract"
	}
	if rec.Response == "" {
		rec.Response = resp.Text
	}
	ops, repairs, fails := ParseOpsRepaired(resp.Text)
	return Proposal{Ops: ops, Calls: []extract.CallRecord{rec}, Failures: fails, Repairs: extract.CountRepairs(nil, repairs)}, nil
}

// RunOptions tune RunDialogue.
type RunOptions struct {
	// DocumentID is set on the chunk references and mentions written.
	DocumentID int
	// Done holds the segment indexes already stored; they are not
	// extracted again.
	Done map[int]bool
	// Prior is the stored operation log of the done segments; it is
	// replayed so later segments see the memory as it stood.
	Prior []extract.Operation
	// Now is the clock used for elapsed times; time.Now when nil.
	Now func() time.Time
}

// Builder is one dialogue's memory built turn by turn: each Step
// extracts a segment against the memory as it stands and applies the
// proposed operations before the next segment.
type Builder struct {
	mem   *Memory
	ex    SegmentExtractor
	docID int
	now   func() time.Time
}

// NewBuilder starts a builder over the memory that replaying opt.Prior
// gives (empty without it); opt.Done is not used.
func NewBuilder(ex SegmentExtractor, opt RunOptions) *Builder {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	mem := Rebuild(opt.Prior, int(^uint(0)>>1))
	mem.DocumentID = opt.DocumentID
	return &Builder{mem: mem, ex: ex, docID: opt.DocumentID, now: now}
}

// Step extracts one segment and applies its operations to the memory. The
// ChunkResult holds the operation log of the turn (turn = segment index)
// and the part of the graph it touched. Segments must come in order.
func (s *Builder) Step(ctx context.Context, seg Segment) (extract.ChunkResult, error) {
	start := s.now()
	prop, err := s.ex.ExtractSegment(ctx, seg, s.mem)
	if err != nil {
		return extract.ChunkResult{}, err
	}
	applied := s.mem.ApplyAt(seg.Index, seg.Start, s.now().UTC().Format(time.RFC3339), prop.Ops)
	return extract.ChunkResult{
		Chunk:      extract.ChunkRef{DocumentID: s.docID, Index: seg.Index},
		Graph:      s.mem.GraphOf(applied),
		Calls:      prop.Calls,
		Failures:   prop.Failures,
		Repairs:    prop.Repairs,
		Operations: applied,
		Elapsed:    s.now().Sub(start),
	}, nil
}

// Memory returns the memory as the steps so far left it.
func (s *Builder) Memory() *Memory { return s.mem }

// RunDialogue extracts the segments of d in order with a Builder, skipping
// those in opt.Done, and hands every result to write (turn = segment
// index). It returns the final memory; it stops at the first extractor or
// write error.
func RunDialogue(ctx context.Context, d *Dialogue, ex SegmentExtractor, opt RunOptions, write func(turn int, res extract.ChunkResult) error) (*Memory, error) {
	s := NewBuilder(ex, opt)
	for _, seg := range Segments(d) {
		if opt.Done[seg.Index] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return s.mem, err
		}
		res, err := s.Step(ctx, seg)
		if err != nil {
			return s.mem, err
		}
		if err := write(seg.Index, res); err != nil {
			return s.mem, err
		}
	}
	return s.mem, nil
}

// ProducedText returns the labels and descriptions of the applied node
// operations and the labels of the applied relations, for Coverage.
func ProducedText(ops []extract.Operation) []string {
	var out []string
	for _, op := range ops {
		if op.Status == extract.OutcomeRejected {
			continue
		}
		out = append(out, op.Label)
		if op.Description != "" {
			out = append(out, op.Description)
		}
	}
	return out
}
