package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract"
	"github.com/kgstudio/kgstudio/extract/eval"
)

const questionsUsage = `usage:
  kgstudio questions add NAME FILE     attach a question set to the extraction NAME (JSON, CSV or a multi-hop set)
  kgstudio questions show NAME [--json]`

// cmdQuestions handles "questions add|show".
func cmdQuestions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(questionsUsage)
	}
	if isHelp(args[0]) {
		fmt.Fprintln(stdout, questionsUsage)
		return nil
	}
	fs, cfg := newFlagSet("questions "+args[0], stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	switch {
	case args[0] == "add" && len(pos) == 2:
		data, err := os.ReadFile(pos[1])
		if err != nil {
			return err
		}
		set, err := eval.ReadQuestions(filepath.Base(pos[1]), data)
		if err != nil {
			return fmt.Errorf("%s: %w", pos[1], err)
		}
		a, err := cfg.openApp(ctx, cfg.logger(stderr))
		if err != nil {
			return err
		}
		defer a.Close()
		if err := a.Scores.SetQuestions(ctx, pos[0], set); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s attached; kgstudio scores %s scores its versions\n", pos[0], plural(len(set.Questions), "question"), pos[0])
		return nil
	case args[0] == "show" && len(pos) == 1:
		a, err := cfg.openApp(ctx, cfg.logger(stderr))
		if err != nil {
			return err
		}
		defer a.Close()
		set, err := a.Scores.Questions(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return printIndented(stdout, set)
		}
		if len(set.Questions) == 0 {
			fmt.Fprintf(stdout, "%s has no question set (kgstudio questions add %s FILE)\n", pos[0], pos[0])
			return nil
		}
		for _, q := range set.Questions {
			fmt.Fprintf(stdout, "%s\t%s\t(%d evidence, %d answers)\n", q.ID, q.Question, q.Evidence(), len(q.Answers))
		}
		return nil
	}
	return errors.New(questionsUsage)
}

// cmdScores prints an extraction's scoreboard.
func cmdScores(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("scores", stderr)
	asJSON := fs.Bool("json", false, "print JSON (the same as GET /api/extractions/NAME/scores)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: kgstudio scores NAME [--json]")
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := a.Scores.Board(ctx, pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		return printIndented(stdout, b)
	}
	fmt.Fprintf(stdout, "%s: %s, %s\n", b.Extraction, plural(len(b.Versions), "version"), plural(b.Questions, "question"))
	printScores(stdout, b.Measures, b.Versions, b.Best, nil)
	return nil
}

// gridFlag collects --grid KEY=V1,V2 settings in the order given.
type gridFlag []app.GridAxis

func (g *gridFlag) String() string { return "" }

func (g *gridFlag) Set(s string) error {
	axis, err := app.ParseGridAxis(s)
	if err != nil {
		return err
	}
	*g = append(*g, axis)
	return nil
}

// experimentJSON is the contract of experiment --json.
type experimentJSON struct {
	Versions []experimentVersion `json:"versions"`
	Best     map[string]string   `json:"best"`
}

type experimentVersion struct {
	Version  string             `json:"version"`
	Settings map[string]any     `json:"settings"`
	Measures map[string]float64 `json:"measures"`
}

// cmdExperiment runs a grid of settings as versions of one extraction,
// scores each on the extraction's question set and prints them side by
// side, the best of each measure marked.
func cmdExperiment(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cfg := newFlagSet("experiment", stderr)
	var grid gridFlag
	fs.Var(&grid, "grid", "KEY=V1,V2: a setting and the values to try (repeatable; keys: "+strings.Join(app.GridKeys, ", ")+")")
	questions := fs.String("questions", "", "a question set to attach to the extraction first (JSON, CSV or a multi-hop set)")
	reference := fs.String("reference", "", "a graph file (JSON, GraphML or neo4j CSV) imported as the extraction's reference version: every version is scored against it")
	embedder := fs.String("embedder", "", "the vectorizer of every version unless the grid varies it")
	asJSON := fs.Bool("json", false, `print {"versions": [{"version", "settings", "measures"}], "best": {MEASURE: "NAME@V"}}`)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 {
		return errors.New("usage: kgstudio experiment NAME --grid KEY=V1,V2 [--grid ...] [--questions FILE] [--reference GRAPH] [--json] [FILE...]")
	}
	if len(grid) == 0 {
		return errors.New("experiment: give at least one --grid KEY=V1,V2")
	}
	name, files := pos[0], pos[1:]
	var set eval.QuestionSet
	if *questions != "" {
		data, err := os.ReadFile(*questions)
		if err != nil {
			return err
		}
		if set, err = eval.ReadQuestions(filepath.Base(*questions), data); err != nil {
			return fmt.Errorf("%s: %w", *questions, err)
		}
	}
	a, err := cfg.openApp(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	// The documents: the files named, else those of the extraction's
	// latest version.
	var docIDs []int
	base := extract.DefaultConfig()
	if len(files) > 0 {
		info := stderr
		if *asJSON {
			info = io.Discard
		}
		docs, err := addFiles(ctx, a.Documents, files, cfg.MaxUpload, info)
		if err != nil {
			return err
		}
		for _, d := range docs {
			docIDs = append(docIDs, d.ID)
		}
	} else {
		latest, err := a.Versions.ByLabel(ctx, name, 0)
		if err != nil {
			return fmt.Errorf("experiment: %w (name the files to extract)", err)
		}
		docIDs = latest.DocumentIDs
	}
	base.Embedder = extract.EmbedderName(*embedder)
	if *reference != "" {
		data, err := os.ReadFile(*reference)
		if err != nil {
			return err
		}
		ref, err := a.Curation.ImportGraph(ctx, name, *reference, data, "")
		if err != nil {
			return fmt.Errorf("%s: %w", *reference, err)
		}
		if err := a.Versions.SetReference(ctx, ref.ID, true); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%s: the reference, imported from %s\n", ref.Label(), filepath.Base(*reference))
	}
	made, err := a.Runs.Experiment(ctx, name, grid, base, docIDs)
	if err != nil {
		return err
	}
	// The questions first, so each version is scored as it finishes.
	if *questions != "" {
		if err := a.Scores.SetQuestions(ctx, name, set); err != nil {
			return err
		}
	}
	for i, v := range made {
		fmt.Fprintf(stderr, "%s: %s\n", v.Label(), strings.TrimPrefix(v.Note, "experiment: "))
		if err := a.Runs.Run(ctx, v, nil); err != nil {
			return fmt.Errorf("%s: %w", v.Label(), err)
		}
		if made[i], err = a.Versions.Get(ctx, v.ID); err != nil {
			return err
		}
	}
	// The versions it made, scored (against the reference when there is
	// one); the extraction's others are not scored again.
	ids := make([]int, len(made))
	for i, v := range made {
		ids[i] = v.ID
	}
	board, err := a.Scores.BoardOf(ctx, name, ids)
	if err != nil {
		return err
	}
	measures, scored, best := board.Measures, board.Versions, board.Best
	if *asJSON {
		out := experimentJSON{Best: best}
		for _, vs := range scored {
			out.Versions = append(out.Versions, experimentVersion{Version: vs.Version, Settings: vs.Settings, Measures: vs.Measures})
		}
		return json.NewEncoder(stdout).Encode(out)
	}
	var keys []string
	for _, ax := range grid {
		keys = append(keys, ax.Key)
	}
	printScores(stdout, measures, scored, best, keys)
	return nil
}

// printScores writes versions as rows and measures as columns (a
// question measure only when some version has it), the best of a column
// marked with *; settings lists the settings shown beside each version
// (nil: all).
func printScores(w io.Writer, measures []app.Measure, versions []app.VersionScores, best map[string]string, settings []string) {
	var cols []app.Measure
	for _, m := range app.TableMeasures(measures) {
		for _, v := range versions {
			if _, ok := v.Measures[m.Key]; ok {
				cols = append(cols, m)
				break
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"version", "settings"}
	for _, m := range cols {
		head = append(head, m.Label)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	bestValue := app.BestValues(best, versions)
	for _, v := range versions {
		s := v.Settings
		if settings != nil {
			s = map[string]any{}
			for _, k := range settings {
				if k == "schema" {
					s[k] = v.Settings["schema"]
				} else if x, ok := v.Settings[k]; ok {
					s[k] = x
				}
			}
		}
		row := []string{v.Version, app.SortedSettings(s)}
		for _, m := range cols {
			x, ok := v.Measures[m.Key]
			cell := "-"
			if ok {
				cell = strconv.FormatFloat(x, 'f', -1, 64)
				if b, ok := bestValue[m.Key]; ok && x == b {
					cell += "*" // the best, or as good as it
				}
			}
			row = append(row, cell)
		}
		if v.Note != "" {
			row = append(row, v.Note)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w, "* the best of its column (--json has recall@5 and every mode's answers too)")
}

var _ flag.Value = (*gridFlag)(nil)
