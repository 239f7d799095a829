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
	u := userCmd{acc: a.Accounts, spaces: cfg.Workspaces, pos: pos, role: role, asJSON: *asJSON, stdin: stdin, stdout: stdout, stderr: stderr}
	if err := knownWorkspaces(ctx, a, u.spaces); err != nil {
		return err
	}
	return userCmds[sub](u, ctx)
}

// userCmd is a user subcommand's input: the accounts, the --workspace
// flags, the positional arguments and the other flags.
type userCmd struct {
	acc            *app.Accounts
	spaces         stringsFlag
	pos            []string
	role           record.Role
	asJSON         bool
	stdin          io.Reader
	stdout, stderr io.Writer
}

// userCmds are the user subcommands, by name (cmdUser checks how many
// arguments each is given).
var userCmds = map[string]func(userCmd, context.Context) error{
	"add": userCmd.add, "list": userCmd.list, "remove": userCmd.remove, "role": userCmd.setRole,
	"leave": userCmd.leave, "password": userCmd.password, "token": userCmd.token, "tokens": userCmd.tokens,
	"revoke": userCmd.revoke,
}

func (u userCmd) add(ctx context.Context) error {
	password, err := readPassword(u.stdin)
	if err != nil {
		return err
	}
	ac, err := u.acc.Add(ctx, u.pos[0], password, cmpRole(u.role, record.RoleViewer), u.spaces...)
	if err != nil {
		return err
	}
	if len(u.spaces) > 0 {
		fmt.Fprintf(u.stdout, "added %s (%s in %s)\n", ac.Name, ac.Role, u.spaces.String())
	} else {
		fmt.Fprintf(u.stdout, "added %s (%s)\n", ac.Name, ac.Role)
	}
	return nil
}

func (u userCmd) list(ctx context.Context) error {
	list, err := u.acc.List(ctx)
	if err != nil {
		return err
	}
	if len(u.spaces) > 0 {
		// The members of the workspaces named.
		list = slices.DeleteFunc(list, func(ac record.Account) bool {
			return !slices.ContainsFunc(u.spaces, func(ws string) bool { _, ok := ac.RoleIn(ws); return ok })
		})
	}
	if u.asJSON {
		return json.NewEncoder(u.stdout).Encode(list)
	}
	all, err := u.acc.Workspaces(ctx)
	if err != nil {
		return err
	}
	for _, ac := range list {
		var in []string
		for _, ws := range ac.Member(all[1:]) {
			r, _ := ac.RoleIn(ws)
			in = append(in, ws+":"+string(r))
		}
		fmt.Fprintf(u.stdout, "%s\t%s\t%s\t%s\n", ac.Name, ac.Role, strings.Join(in, ","), ac.CreatedAt.UTC().Format("2006-01-02"))
	}
	return nil
}

func (u userCmd) remove(ctx context.Context) error {
	if err := u.acc.Remove(ctx, u.pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(u.stdout, "removed %s with their tokens and sessions\n", u.pos[0])
	return nil
}

func (u userCmd) setRole(ctx context.Context) error {
	r, err := record.ParseRole(u.pos[1])
	if err != nil {
		return err
	}
	if len(u.spaces) > 0 {
		for _, ws := range u.spaces {
			if err := u.acc.SetMember(ctx, u.pos[0], ws, r); err != nil {
				return err
			}
		}
		fmt.Fprintf(u.stdout, "%s is now %s in %s\n", u.pos[0], r, u.spaces.String())
		return nil
	}
	if err := u.acc.SetRole(ctx, u.pos[0], r); err != nil {
		return err
	}
	fmt.Fprintf(u.stdout, "%s is now %s\n", u.pos[0], r)
	return nil
}

func (u userCmd) leave(ctx context.Context) error {
	if len(u.spaces) == 0 {
		return errors.New("user leave: name the workspaces with --workspace")
	}
	for _, ws := range u.spaces {
		if err := u.acc.SetMember(ctx, u.pos[0], ws, ""); err != nil {
			return err
		}
	}
	fmt.Fprintf(u.stdout, "%s is no longer a member of %s\n", u.pos[0], u.spaces.String())
	return nil
}

func (u userCmd) password(ctx context.Context) error {
	password, err := readPassword(u.stdin)
	if err != nil {
		return err
	}
	if err := u.acc.SetPassword(ctx, u.pos[0], password); err != nil {
		return err
	}
	fmt.Fprintf(u.stdout, "password of %s changed; their sessions ended\n", u.pos[0])
	return nil
}

func (u userCmd) token(ctx context.Context) error {
	if len(u.spaces) > 1 {
		return errors.New("user token: a token works in one workspace: give one --workspace")
	}
	return printNewToken(ctx, u.acc, u.pos[0], u.pos[1], u.role, strings.Join(u.spaces, ""), u.stdout, u.stderr)
}

func (u userCmd) tokens(ctx context.Context) error {
	list, err := u.acc.Tokens(ctx)
	if err != nil {
		return err
	}
	if u.asJSON {
		return json.NewEncoder(u.stdout).Encode(list)
	}
	for _, t := range list {
		state := "live"
		if t.RevokedAt != nil {
			state = "revoked " + t.RevokedAt.UTC().Format("2006-01-02")
		}
		fmt.Fprintf(u.stdout, "%d\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Owner, t.Name, t.Role, t.Workspace, state)
	}
	return nil
}

func (u userCmd) revoke(ctx context.Context) error {
	id, err := strconv.Atoi(u.pos[0])
	if err != nil {
		return fmt.Errorf("user revoke: %q is not a token id (kgstudio user tokens lists them)", u.pos[0])
	}
	if err := u.acc.RevokeToken(ctx, id); err != nil {
		return err
	}
	fmt.Fprintf(u.stdout, "token %d revoked\n", id)
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
