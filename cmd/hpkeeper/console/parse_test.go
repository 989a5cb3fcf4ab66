package console

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/hpkeeper/hpkeeper/commands"
)

func TestParseLine(t *testing.T) {
	reg := commands.NewRegistry(systems, features()...)
	opts := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		in   string
		want line
	}{
		{"blank", "   ", line{kind: lineBlank}},
		{"comment", "  # set up the table", line{kind: lineComment, text: "# set up the table"}},
		{"command without options", "/undo", line{kind: lineCommand, command: "undo", options: opts()}},
		{"subcommand", "/table setup system:hit-protection",
			line{kind: lineCommand, command: "table", subcommand: "setup", options: opts("system", "hit-protection")}},
		{"subcommand without options", "/char list", line{kind: lineCommand, command: "char", subcommand: "list", options: opts()}},
		{"quoted value", `/char create name:Lister stats:"class=fighter hit-die=d6 hp=4"`,
			line{kind: lineCommand, command: "char", subcommand: "create", options: opts("name", "Lister", "stats", "class=fighter hit-die=d6 hp=4")}},
		{"escaped quote and backslash", `/char create name:"Ace \"the\" Rimmer \\o/"`,
			line{kind: lineCommand, command: "char", subcommand: "create", options: opts("name", `Ace "the" Rimmer \o/`)}},
		{"other backslash kept", `/char create name:"a\b"`,
			line{kind: lineCommand, command: "char", subcommand: "create", options: opts("name", `a\b`)}},
		{"quotes inside an unquoted value", `/char set name:Lister stats:hp="3"`,
			line{kind: lineCommand, command: "char", subcommand: "set", options: opts("name", "Lister", "stats", `hp="3"`)}},
		{"unquoted value with spaces, as Discord takes it", "/damage target:Bandit Captain  amount:3",
			line{kind: lineCommand, command: "damage", options: opts("target", "Bandit Captain", "amount", "3")}},
		{"unquoted value with spaces last", "/char show name:Sir Bob ",
			line{kind: lineCommand, command: "char", subcommand: "show", options: opts("name", "Sir Bob")}},
		{"colon inside a value", "/roll expr:1d6 purpose:other as:a:b",
			line{kind: lineCommand, command: "roll", options: opts("expr", "1d6", "purpose", "other", "as", "a:b")}},
		{"extra spaces and tabs", "  /roll \t expr:d20   ", line{kind: lineCommand, command: "roll", options: opts("expr", "d20")}},
		{"command without subcommands takes options at once", "/damage target:Lister amount:4",
			line{kind: lineCommand, command: "damage", options: opts("target", "Lister", "amount", "4")}},
		{"user option", "/table gm action:add user:@meghan",
			line{kind: lineCommand, command: "table", subcommand: "gm", options: opts("action", "add", "user", "meghan"), users: opts("meghan", "meghan")}},
		{"@user prefix", "@meghan /char show name:Meghan",
			line{kind: lineCommand, user: "meghan", command: "char", subcommand: "show", options: opts("name", "Meghan")}},
		{"@user click", "@meghan click Stay Up", line{kind: lineClick, user: "meghan", text: "Stay Up"}},
		{"click", "click   Heroic Death ", line{kind: lineClick, text: "Heroic Death"}},
		{"click quoted", `click "Go Down"`, line{kind: lineClick, text: "Go Down"}},
		{"submit", "submit I hold the door: \"go!\"", line{kind: lineSubmit, text: `I hold the door: "go!"`}},
		{"submit nothing", "submit", line{kind: lineSubmit}},
		{"directive", ":dice 5, 2,1", line{kind: lineDirective, directive: "dice", text: "5, 2,1"}},
		{"directive without argument", ":help", line{kind: lineDirective, directive: "help"}},
		{"autocomplete", "?/damage target:li", line{kind: lineAutocomplete, command: "damage", options: opts("target", "li"), focused: "target"}},
		{"autocomplete empty value", "?/char show name:", line{kind: lineAutocomplete, command: "char", subcommand: "show", options: opts("name", ""), focused: "name"}},
		{"autocomplete focuses the last option", "?/heal amount:2 target:Me",
			line{kind: lineAutocomplete, command: "heal", options: opts("amount", "2", "target", "Me"), focused: "target"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLine(reg, tt.in)
			if err != nil {
				t.Fatalf("parseLine(%q) error %v; want %+v", tt.in, err, tt.want)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseLine(%q) = %+v; want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseLineErrors(t *testing.T) {
	reg := commands.NewRegistry(systems, features()...)
	tests := []struct {
		name, in, want string // want: a part of the error message
	}{
		{"plain words", "hello there", "start a command with /"},
		{"bare slash", "/", "must be followed by a command name"},
		{"unknown command", "/fly to:moon", "unknown command /fly"},
		{"missing subcommand", "/table", "needs a subcommand first: setup, show, tracker, gm, export, import, option"},
		{"option instead of subcommand", "/table system:harm", "needs a subcommand first"},
		{"unknown subcommand", "/char rename name:x", `no subcommand "rename"`},
		{"word that is not an option", "/char create Lister", `"Lister" is not an option`},
		{"word without colon on a plain command", "/roll 3d6", `"3d6" is not an option`},
		{"unknown option", "/roll expression:3d6", `no option "expression"; its options are expr, as`},
		{"option on a command without options", "/undo all:true", "takes no options"},
		{"empty option name", "/roll :3d6", `is not an option`},
		{"duplicate option", "/roll expr:1 expr:2", "option expr given twice"},
		{"empty value", "/roll expr:", "option expr has no value"},
		{"empty quoted value", `/roll expr:""`, "option expr has no value"},
		{"unterminated quote", `/char create name:"Lister`, "no closing quote"},
		{"text after closing quote", `/char create name:"Lis"ter`, "a space must follow the closing quote"},
		{"user name with spaces", `/table gm action:add user:"a b"`, "a user name has no spaces"},
		{"@ alone", "@ /char list", "must be followed by a user name"},
		{"@user alone", "@bob", "what should bob do?"},
		{"@user directive", "@bob :dice 1", "can only be followed by"},
		{"@user @user", "@bob @meghan /char list", "can only be followed by"},
		{"click without label", "click", "click needs a button label"},
		{"click bad quote", `click "Stay`, "no closing quote"},
		{"colon alone", ":", "a directive is a name"},
		{"autocomplete without option", "?/damage", "give the option being typed last"},
		{"autocomplete option without suggestions", "?/damage amount:3", "option amount has no suggestions"},
		{"autocomplete empty value not last", "?/damage target: amount:3", "option target has no value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLine(reg, tt.in)
			if err == nil {
				t.Fatalf("parseLine(%q) = %+v; want an error containing %q", tt.in, got, tt.want)
			}
			if !errors.Is(err, ErrNotUnderstood) {
				t.Errorf("parseLine(%q) error %v does not wrap ErrNotUnderstood", tt.in, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseLine(%q) error %q; want it to contain %q", tt.in, err, tt.want)
			}
		})
	}
}

func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		"",
		"# comment",
		"/table setup system:hit-protection",
		`/char create name:Lister stats:"class=fighter hit-die=d6 hp=4"`,
		`@meghan /char create name:"Me \"g\" han" stats:"class=magic-user level=3 hp=1"`,
		"/roll expr:3d6dl1",
		"?/damage target:li",
		"?/char show name:",
		"click Stay Up",
		`click "Go Down"`,
		"submit I hold the door",
		":dice -1,0,1",
		":gm @bob",
		"/table gm action:add user:@bob",
		"/table gm action:add user:@@ob",
		`/char create name:"unterminated`,
		`/char create name:"a"b`,
		"@",
		"/",
		"?/",
		"/roll expr:1 expr:2",
		"/char set name:x stats:hp=\"3\" \t",
		"@bob @bob",
		"/roll expr:\"\\\\\"",
	} {
		f.Add(s)
	}
	reg := commands.NewRegistry(systems, features()...)
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parseLine(reg, s)
		if err != nil {
			if !errors.Is(err, ErrNotUnderstood) {
				t.Fatalf("parseLine(%q) error %v does not wrap ErrNotUnderstood", s, err)
			}
			return
		}
		switch l.kind {
		case lineCommand, lineAutocomplete:
			c := reg.Lookup(l.command)
			if c == nil {
				t.Fatalf("parseLine(%q) = command %q; want a registered command", s, l.command)
			}
			if (len(c.Subcommands) > 0) != (l.subcommand != "") {
				t.Fatalf("parseLine(%q) = /%s subcommand %q; want one exactly when the command has subcommands", s, l.command, l.subcommand)
			}
			if l.kind == lineAutocomplete {
				if _, ok := l.options[l.focused]; !ok {
					t.Fatalf("parseLine(%q) focused %q, which is not among the options %v", s, l.focused, l.options)
				}
			}
			for name, v := range l.options {
				if v == "" && !(l.kind == lineAutocomplete && name == l.focused) {
					t.Fatalf("parseLine(%q) option %s is empty", s, name)
				}
			}
			// The line as the history shows it (Request.Line) parses back to
			// the same options, for values that strconv.Quote leaves alone.
			if l.kind == lineCommand && simpleValues(l.options) {
				r := commands.Request{Command: l.command, Subcommand: l.subcommand, Options: l.options}
				again, err := parseLine(reg, r.Line())
				if err != nil || !reflect.DeepEqual(again.options, l.options) {
					t.Fatalf("parseLine(%q) options %v; parseLine(%q) = %v, %v", s, l.options, r.Line(), again.options, err)
				}
			}
		}
	})
}

// simpleValues reports whether every value is printable UTF-8 without quotes,
// backslashes or white space other than ' '.
func simpleValues(opts map[string]string) bool {
	for _, v := range opts {
		if !utf8.ValidString(v) {
			return false
		}
		for _, r := range v {
			if r == '"' || r == '\\' || r != ' ' && (unicode.IsSpace(r) || !unicode.IsPrint(r)) {
				return false
			}
		}
	}
	return true
}

func TestParseFaces(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"1,2,6", []int{1, 2, 6}, ""},
		{"-1,0,1", []int{-1, 0, 1}, ""},
		{" 5, 2 ,1 ", []int{5, 2, 1}, ""},
		{"4 4 4", []int{4, 4, 4}, ""},
		{"1000", []int{1000}, ""},
		{"", nil, "no die faces"},
		{" , ", nil, "no die faces"},
		{"1,x", nil, `"x" is not a whole number`},
		{"1.5", nil, "not a whole number"},
		{"-2", nil, "no die has the face -2"},
		{"1001", nil, "no die has the face 1001"},
	}
	for _, tt := range tests {
		got, err := ParseFaces(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseFaces(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseFaces(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}
