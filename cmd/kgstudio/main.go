// Command kgstudio serves the kgstudio web application and runs its tasks
// from the command line: adding documents, extracting, importing schemas,
// exporting and comparing graphs, evaluating against gold sets.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"

	"github.com/kgstudio/kgstudio/extract/query"
)

// version is what the MCP server reports as its version.
const version = "0.1.0"

func main() { os.Exit(mainCode()) }

// mainCode runs the command line and returns the process's exit code.
func mainCode() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// KGSTUDIO_CPUPROFILE=FILE writes a CPU profile of the command (go tool
	// pprof reads it), for finding where a whole run spends its time.
	if path := os.Getenv("KGSTUDIO_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer f.Close()
			defer pprof.StopCPUProfile()
		}
	}
	// KGSTUDIO_MEMPROFILE=FILE writes a heap profile of what the command
	// allocated, in use and in all (go tool pprof -sample_index=...).
	if path := os.Getenv("KGSTUDIO_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			runtime.GC() // so in use is what the command holds at its end
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp): // -h printed the command's flags
		return 0
	case isUsage(err):
		fmt.Fprintln(os.Stderr, "kgstudio:", oneLine(err))
		return 2 // the command line was wrong, as flag-based tools say
	default:
		fmt.Fprintln(os.Stderr, "kgstudio:", oneLine(err))
		return 1
	}
}

// usage is the command summary; the query modes come from query.Modes.
var usage = strings.ReplaceAll(usageText, "{modes}", strings.Join(query.ModeNames(), "|"))

const usageText = `kgstudio — turn text into knowledge graphs and compare versions

Usage:
  kgstudio serve   [--addr 127.0.0.1:8080] [--public-url URL] [--data DIR] [--db URL] [--no-worker]
  kgstudio worker  [--concurrency N]
  kgstudio doc add FILE|FOLDER|ZIP|CORPUS.json...
  kgstudio doc list [--json]
  kgstudio doc delete ID
  kgstudio extract --name NAME [--schema NAME[@V]] [--strategy nlp|tuple|schema|dialogue]
                   [--provider gemini|openai] [--model M] [--embedder use-lite|offline|gemini|openai]
                   [--chunk-size N] [--overlap N] [--no-cache] [--reference NAME@V]
                   [--reports offline|model] [--max-reports N] [--detach] [--no-index] [--json] FILE...
  kgstudio extract --from NAME@V [--without DOC]... [--detach] [--json] [FILE...]
  kgstudio extract --estimate [--strategy nlp|tuple] [--provider P] [--model M] [--max-gleaning N] [--json] FILE...
  kgstudio retry NAME@V [--json]
  kgstudio duplicates NAME@V [--json]
  kgstudio merge NAME@V KEEP DROP... [--json]
  kgstudio edit NAME@V EDITS.json|- [--json]
  kgstudio import NAME FILE|FOLDER [--format json|graphml|csv] [--json]
  kgstudio schema import FILE [--name NAME]
  kgstudio schema export NAME[@VERSION] [--format kag|json]
  kgstudio schema list
  kgstudio schema delete NAME
  kgstudio schema suggest NAME FILE... [--provider gemini|openai] [--model M] [--out FILE]
  kgstudio version list [NAME] [--json]
  kgstudio version show NAME@V [--json]
  kgstudio version cancel NAME@V [--json]
  kgstudio version delete NAME@V | NAME --all
  kgstudio export NAME@V --format json|graphml|csv|cypher [--chunks] [--namespace NS] [--out PATH [--force]]
  kgstudio compare NAME@V1 NAME@V2 [--json] [--ignore-type] [--undirected]
  kgstudio eval --format webnlg|docred FILE [--strategy nlp|tuple|schema] [--provider gemini|openai] [--model M]
                [--schema NAME[@V]] [--limit N] [--json]
  kgstudio eval --format locomo FILE [--version NAME@V] [--mode M] [--top-k N] [--embedder use-lite|offline] [--json]
  kgstudio eval --format multihop QUESTIONS.json --corpus CORPUS.json [--mode M] [--embedder use-lite|offline] [--json]
  kgstudio eval --format longmemeval FILE [--distractors N] [--limit N] [--mode M] [--embedder use-lite|offline] [--json]
  kgstudio query NAME@V QUESTION [--mode {modes}] [--top-k N] [--as-of DATE] [--provider P] [--keywords model|offline] [--response-type T] [--answer] [--json]
  kgstudio communities NAME@V [--level N] [--json]
  kgstudio questions add|show NAME [FILE]  a question set (JSON, CSV, multi-hop, LoCoMo, LongMemEval) that scores NAME's versions
  kgstudio scores NAME [--json]       every version of NAME scored: recall and answers per mode, graph and run measures
  kgstudio experiment NAME --grid KEY=V1,V2 [--grid ...] [--questions FILE] [--reference GRAPH] [--embedder E] [--json] [FILE...]
  kgstudio mcp [--no-worker]          the MCP server over stdio, for agents (Claude Desktop, IDEs)
  kgstudio user add|list|remove|role|leave|password|token|tokens|revoke ...  people who sign in, their roles and tokens
  kgstudio workspace add|list ...    workspaces: documents, schemas and extractions kept apart (--workspace W on data commands)
  kgstudio token create|revoke|list ...  people's API tokens, one workspace each

Every command takes --data DIR (env KGSTUDIO_DATA, default ./kgstudio-data)
and --db URL (env DATABASE_URL; default: an SQLite file in the data dir).
`

// run dispatches a subcommand.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	args = commonFlagsLast(args)
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errNoCommand
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return cmdServe(ctx, rest, stdout, stderr)
	case "worker":
		return cmdWorker(ctx, rest, stdout, stderr)
	case "doc":
		return cmdDoc(ctx, rest, stdout, stderr)
	case "extract":
		return cmdExtract(ctx, rest, stdout, stderr)
	case "schema":
		return cmdSchema(ctx, rest, stdout, stderr)
	case "version":
		return cmdVersion(ctx, rest, stdout, stderr)
	case "export":
		return cmdExport(ctx, rest, stdout, stderr)
	case "compare":
		return cmdCompare(ctx, rest, stdout, stderr)
	case "eval":
		return cmdEval(ctx, rest, stdout, stderr)
	case "query":
		return cmdQuery(ctx, rest, stdout, stderr)
	case "retry":
		return cmdRetry(ctx, rest, stdout, stderr)
	case "duplicates":
		return cmdDuplicates(ctx, rest, stdout, stderr)
	case "merge":
		return cmdMerge(ctx, rest, stdout, stderr)
	case "edit":
		return cmdEdit(ctx, rest, stdin, stdout, stderr)
	case "import":
		return cmdImport(ctx, rest, stdout, stderr)
	case "communities":
		return cmdCommunities(ctx, rest, stdout, stderr)
	case "questions":
		return cmdQuestions(ctx, rest, stdout, stderr)
	case "scores":
		return cmdScores(ctx, rest, stdout, stderr)
	case "experiment":
		return cmdExperiment(ctx, rest, stdout, stderr)
	case "mcp":
		return cmdMCP(ctx, rest, stdin, stdout, stderr)
	case "user":
		return cmdUser(ctx, rest, stdin, stdout, stderr)
	case "workspace":
		return cmdWorkspace(ctx, rest, stdout, stderr)
	case "token":
		return cmdToken(ctx, rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q; run kgstudio help", cmd)
	}
}

// isHelp reports an argument asking for a command's usage.
func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "help" }

// errNoCommand is a command line that names no command.
var errNoCommand = errors.New("name a command (kgstudio help lists them)")

// isUsage reports whether err says the command line was wrong: no
// command, an unknown one, a bad flag, or a command's usage.
func isUsage(err error) bool {
	msg := err.Error()
	return errors.Is(err, errNoCommand) || strings.HasPrefix(msg, "usage:") || strings.HasPrefix(msg, "unknown command") ||
		strings.Contains(msg, "-h lists its flags")
}
