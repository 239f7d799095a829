package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/kgstudio/kgstudio/app"
	"github.com/kgstudio/kgstudio/extract/record"
)

const userUsage = `usage:
  kgstudio user add NAME [--role viewer|editor|admin] [--workspace W ...]   the password is read from standard input (one line);
                                                        with --workspace, a member of those workspaces (with that role) alone
  kgstudio user list [--workspace W ...] [--json]   NAME, role, WORKSPACE:ROLE..., since
  kgstudio user remove NAME
  kgstudio user role NAME viewer|editor|admin [--workspace W ...]   the role on the server, or in those workspaces
  kgstudio user leave NAME --workspace W ...            ends memberships
  kgstudio user password NAME                           the new password is read from standard input
  kgstudio user token NAME TOKEN-NAME [--role R] [--workspace W]   a token for NAME, printed once
  kgstudio user tokens [--json]
  kgstudio user revoke TOKEN-ID`

// cmdUser manages the people who sign in to a shared server, and their
// tokens. Once an account exists, serve asks every request who it is
// from (see README).
func cmdUser(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	sub, ok, err := subcommand(args, userUsage, stdout)
	if !ok {
		return err
	}
	fs, cfg := newFlagSet("user "+sub, stderr)
	asJSON := fs.Bool("json", false, "list, tokens: print JSON")
	roleFlag := fs.String("role", "", "add: the account's role (default viewer); token: the token's (default the owner's)")
	pos, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	want := map[string]int{"add": 1, "list": 0, "remove": 1, "role": 2, "leave": 1, "password": 1, "token": 2, "tokens": 0, "revoke": 1}
	n, ok := want[sub]
	if !ok {
		return fmt.Errorf("user: unknown subcommand %q\n%s", sub, userUsage)
	}
	if len(pos) != n {
		return fmt.Errorf("user %s: %d argument(s) expected, %d given\n%s", sub, n, len(pos), userUsage)
	}
	role, err := optionalRole(*roleFlag)
	if err != nil {
		return err
	}
	a, err := cfg.openMain(ctx, cfg.logger(stderr))
	if err != nil {
		return err
	}
	defer a.Close()
	acc := a.Accounts
	spaces := cfg.Workspaces
	if err := knownWorkspaces(ctx, a, spaces); err != nil {
		return err
	}
	switch sub {
	case "add":
		password, err := readPassword(stdin)
		if err != nil {
			return err
		}
		ac, err := acc.Add(ctx, pos[0], password, cmpRole(role, record.RoleViewer), spaces...)
		if err != nil {
			return err
		}
		if len(spaces) > 0 {
			fmt.Fprintf(stdout, "added %s (%s in %s)\n", ac.Name, ac.Role, spaces.String())
		} else {
			fmt.Fprintf(stdout, "added %s (%s)\n", ac.Name, ac.Role)
		}
	case "list":
		list, err := acc.List(ctx)
		if err != nil {
			return err
		}
		if len(spaces) > 0 {
			// The members of the workspaces named.
			list = slices.DeleteFunc(list, func(ac record.Account) bool {
				return !slices.ContainsFunc(spaces, func(ws string) bool { _, ok := ac.RoleIn(ws); return ok })
			})
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(list)
		}
		all, err := acc.Workspaces(ctx)
		if err != nil {
			return err
		}
		for _, ac := range list {
			var in []string
			for _, ws := range ac.Member(all[1:]) {
				r, _ := ac.RoleIn(ws)
				in = append(in, ws+":"+string(r))
			}
			fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\n", ac.Name, ac.Role, strings.Join(in, ","), ac.CreatedAt.UTC().Format("2006-01-02"))
		}
	case "remove":
		if err := acc.Remove(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed %s with their tokens and sessions\n", pos[0])
	case "role":
		r, err := record.ParseRole(pos[1])
		if err != nil {
			return err
		}
		if len(spaces) > 0 {
			for _, ws := range spaces {
				if err := acc.SetMember(ctx, pos[0], ws, r); err != nil {
					return err
				}
			}
			fmt.Fprintf(stdout, "%s is now %s in %s\n", pos[0], r, spaces.String())
			return nil
		}
		if err := acc.SetRole(ctx, pos[0], r); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s is now %s\n", pos[0], r)
	case "leave":
		if len(spaces) == 0 {
			return errors.New("user leave: name the workspaces with --workspace")
		}
		for _, ws := range spaces {
			if err := acc.SetMember(ctx, pos[0], ws, ""); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "%s is no longer a member of %s\n", pos[0], spaces.String())
	case "password":
		password, err := readPassword(stdin)
		if err != nil {
			return err
		}
		if err := acc.SetPassword(ctx, pos[0], password); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "password of %s changed; their sessions ended\n", pos[0])
	case "token":
		if len(spaces) > 1 {
			return errors.New("user token: a token works in one workspace: give one --workspace")
		}
		return printNewToken(ctx, acc, pos[0], pos[1], role, strings.Join(spaces, ""), stdout, stderr)
	case "tokens":
		list, err := acc.Tokens(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(list)
		}
		for _, t := range list {
			state := "live"
			if t.RevokedAt != nil {
				state = "revoked " + t.RevokedAt.UTC().Format("2006-01-02")
			}
			fmt.Fprintf(stdout, "%d\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Owner, t.Name, t.Role, t.Workspace, state)
		}
	case "revoke":
		id, err := strconv.Atoi(pos[0])
		if err != nil {
			return fmt.Errorf("user revoke: %q is not a token id (kgstudio user tokens lists them)", pos[0])
		}
		if err := acc.RevokeToken(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "token %d revoked\n", id)
	}
	return nil
}

// knownWorkspaces checks that every workspace named exists before
// anything changes.
func knownWorkspaces(ctx context.Context, a *app.App, names []string) error {
	if len(names) == 0 {
		return nil
	}
	all, err := a.Accounts.Workspaces(ctx)
	if err != nil {
		return err
	}
	for _, ws := range names {
		if !slices.Contains(all, ws) {
			return fmt.Errorf("workspace %s not found (kgstudio workspace list names them; kgstudio workspace add makes one)", ws)
		}
	}
	return nil
}

// printNewToken makes a person's token and prints it alone on standard
// output's last line (what it is goes to standard error): shown once.
func printNewToken(ctx context.Context, acc *app.Accounts, owner, name string, role record.Role, ws string, stdout, stderr io.Writer) error {
	secret, t, err := acc.NewToken(ctx, owner, name, role, ws)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "token %s of %s (%s in %s, id %d), shown this once:\n", t.Name, t.Owner, t.Role, t.Workspace, t.ID)
	fmt.Fprintln(stdout, secret)
	return nil
}

// subcommand reads a command's subcommand from args: ok is false when
// there is none (err is the usage) or it asked for the usage (printed).
func subcommand(args []string, usage string, stdout io.Writer) (sub string, ok bool, err error) {
	if len(args) == 0 {
		return "", false, errors.New(usage)
	}
	if isHelp(args[0]) {
		fmt.Fprintln(stdout, usage)
		return "", false, nil
	}
	return args[0], true, nil
}

// optionalRole reads a --role flag: "" when not given.
func optionalRole(flag string) (record.Role, error) {
	if flag == "" {
		return "", nil
	}
	return record.ParseRole(flag)
}

func cmpRole(r, def record.Role) record.Role {
	if r == "" {
		return def
	}
	return r
}

// readPassword reads a password: the first line of stdin, without its
// line end (never echoed, never logged).
func readPassword(stdin io.Reader) (string, error) {
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("give the password on standard input (one line), e.g. from a password manager or a file")
	}
	return line, nil
}
