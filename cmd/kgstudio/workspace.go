package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/kgstudio/kgstudio/extract/record"
)

const workspaceUsage = `usage:
  kgstudio workspace add NAME    a workspace of its own documents, schemas and extractions
  kgstudio workspace list [--json]
Data commands work in one with --workspace NAME; kgstudio user add and
kgstudio token create make people members of one and tokens for one`

// cmdWorkspace adds and lists workspaces.
func cmdWorkspace(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, ok, err := subcommand(args, workspaceUsage, stdout)
	if !ok {
		return err
	}
	fs, cfg := newFlagSet("workspace "+sub, stderr)
	asJSON := fs.Bool("json", false, "list: print JSON")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	want := map[string]int{"add": 1, "list": 0}
	if n, ok := want[sub]; !ok || len(pos) != n {
		return fmt.Errorf("workspace %s: unknown subcommand or wrong arguments\n%s", sub, workspaceUsage)
	}
	a, err := cfg.openMain(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	switch sub {
	case "add":
		if err := a.Accounts.AddWorkspace(ctx, pos[0]); err != nil {
			return err
		}
		// Its database is made now, so a mistake in where it goes
		// shows at once.
		if _, err := a.Workspace(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "added workspace %s\n", pos[0])
	case "list":
		all, err := a.Accounts.Workspaces(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(map[string]any{"workspaces": all})
		}
		for _, ws := range all {
			fmt.Fprintln(stdout, ws)
		}
	}
	return nil
}

const tokenUsage = `usage:
  kgstudio token create USER --workspace W [--name LABEL] [--role R]   prints the new token alone on its last line, once
  kgstudio token revoke TOKEN        the token itself (kgs_...) or its id
  kgstudio token list [--workspace W ...] [--json]`

// cmdToken makes, revokes and lists people's API tokens.
func cmdToken(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	sub, ok, err := subcommand(args, tokenUsage, stdout)
	if !ok {
		return err
	}
	fs, cfg := newFlagSet("token "+sub, stderr)
	asJSON := fs.Bool("json", false, "list: print JSON")
	name := fs.String("name", "", "create: the token's label (default cli-DATE-TIME)")
	roleFlag := fs.String("role", "", "create: the token's role (default the person's in the workspace)")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	want := map[string]int{"create": 1, "revoke": 1, "list": 0}
	if n, ok := want[sub]; !ok || len(pos) != n {
		return fmt.Errorf("token %s: unknown subcommand or wrong arguments\n%s", sub, tokenUsage)
	}
	role, err := optionalRole(*roleFlag)
	if err != nil {
		return err
	}
	spaces := cfg.Workspaces
	a, err := cfg.openMain(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	acc := a.Accounts
	switch sub {
	case "create":
		if len(spaces) != 1 {
			return errors.New("token create: a token works in one workspace: give one --workspace")
		}
		label := *name
		if label == "" {
			label = "cli-" + time.Now().UTC().Format("20060102-150405")
		}
		return printNewToken(ctx, acc, pos[0], label, role, spaces[0], stdout, stderr)
	case "revoke":
		rt, err := acc.Revoke(ctx, strings.TrimSpace(pos[0]))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "token %d (%s of %s) revoked\n", rt.ID, rt.Name, rt.Owner)
	case "list":
		list, err := acc.Tokens(ctx)
		if err != nil {
			return err
		}
		if len(spaces) > 0 {
			list = slices.DeleteFunc(list, func(t record.AccessToken) bool { return !slices.Contains(spaces, t.Workspace) })
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(map[string]any{"tokens": list})
		}
		for _, t := range list {
			state := "live"
			if t.RevokedAt != nil {
				state = "revoked " + t.RevokedAt.UTC().Format("2006-01-02")
			}
			fmt.Fprintf(stdout, "%d\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Owner, t.Name, t.Role, t.Workspace, state)
		}
	}
	return nil
}
