package console

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpkeeper/hpkeeper/commands"
)

// maxAttachment bounds a file given in an attachment option, in bytes (as
// Discord's upload limit would).
const maxAttachment = commands.MaxFileSize

// writeFiles writes the files attached to resp into the files directory
// (created when missing) and
// adds a line naming each one's path to b ("" directory: the files are only
// named).
func (c *Console) writeFiles(b *strings.Builder, resp *commands.Response) {
	for _, f := range resp.Files {
		name := safeFileName(f.Name)
		if c.filesDir == "" {
			fmt.Fprintf(b, "(attached %s, %s; not saved: no --files directory)\n", name, f.ContentType)
			continue
		}
		path := filepath.Join(c.filesDir, name)
		err := os.MkdirAll(c.filesDir, 0o755)
		if err == nil {
			err = os.WriteFile(path, f.Data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(b, "(attached %s, %s; could not save it: %v)\n", name, f.ContentType, err)
			continue
		}
		fmt.Fprintf(b, "(attached %s, %s; written to %s)\n", name, f.ContentType, path)
	}
}

// safeFileName keeps a bot-given file name inside the files directory.
func safeFileName(name string) string {
	name = filepath.Base(filepath.Clean("/" + name))
	if name == "/" || name == "." || name == "" {
		return "attachment"
	}
	return name
}

// attach reads the local file named by each attachment option of r (the
// console's stand-in for an upload) into r.Attachments. A file that cannot
// be read is reported and left out: the bot then asks for it.
func (c *Console) attach(r *commands.Request) {
	cmd := c.reg.Lookup(r.Command)
	if cmd == nil {
		return
	}
	defs := cmd.Options
	if sub := cmd.Sub(r.Subcommand); sub != nil {
		defs = sub.Options
	}
	for _, d := range defs {
		path, ok := r.Options[d.Name]
		if d.Type != commands.OptionAttachment || !ok {
			continue
		}
		data, err := readLimited(path)
		if err != nil {
			c.print(fmt.Sprintf("(cannot attach %s: %v)\n", path, err))
			continue
		}
		if r.Attachments == nil {
			r.Attachments = map[string]*commands.Attachment{}
		}
		r.Attachments[d.Name] = &commands.Attachment{Filename: filepath.Base(path), Size: len(data), Data: data}
		r.Options[d.Name] = filepath.Base(path)
	}
}

func readLimited(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxAttachment {
		return nil, fmt.Errorf("%d bytes; at most %d", fi.Size(), maxAttachment)
	}
	return os.ReadFile(path)
}
