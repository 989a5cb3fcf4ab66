package discordtest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ApplicationID is the fake application's id: GET
// /oauth2/applications/@me answers it, and it is the bot user's id in
// READY, as Discord's are the same snowflake.
const ApplicationID = "1311000000000000001"

// Registration is one bulk overwrite of the application's commands (PUT
// /applications/{application id}/commands, or …/guilds/{guild id}/commands).
type Registration struct {
	// GuildID is "" for the global commands.
	GuildID string
	// Names are the commands' names, in the order sent.
	Names []string
	// Auth is the Authorization header ("Bot <token>").
	Auth string
	// Body is the JSON array sent.
	Body []byte
}

// Message is one message the bot sent or edited through Discord's REST
// API: a follow-up or an edit of an interaction's original response
// through its webhook (the interaction token authorises it), or a channel
// message of the tracker (the bot token does).
type Message struct {
	// Method and Route say what it was: "POST webhook" (a follow-up),
	// "PATCH webhook" (an edit of the original response or of a
	// follow-up), "DELETE webhook", "POST channel" (a new message) or
	// "PATCH channel" (an edit).
	Method, Route string
	// ApplicationID and Token name the interaction of a webhook message;
	// ChannelID the channel of a channel message; MessageID the message
	// edited or deleted ("@original" for the original response).
	ApplicationID, Token, ChannelID, MessageID string
	// Auth is the Authorization header ("" for a webhook).
	Auth string
	// Content and Flags are the message's JSON fields (from payload_json
	// for a multipart body); Files are the names of the files attached.
	Content string
	Flags   int
	Files   []string
	// Body is the request's JSON (payload_json of a multipart body).
	Body []byte
	// At is when the server received it.
	At time.Time
}

// restState is what the REST routes keep.
type restState struct {
	registrations []Registration
	messages      []Message
	commands      map[string][]json.RawMessage // by guild id ("" global)
	nextID        atomic.Int64
}

// restRoutes adds the application, command, webhook and channel message
// routes to mux.
func (s *Server) restRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/{version}/oauth2/applications/@me", func(w http.ResponseWriter, r *http.Request) {
		if !s.botAuth(w, r) {
			return
		}
		s.logf("GET /oauth2/applications/@me: application %s", ApplicationID)
		writeJSON(w, fmt.Sprintf(`{"id":%q,"name":"hpkeeper (fake)","bot_public":true,"bot_require_code_grant":false}`, ApplicationID))
	})
	for _, path := range []string{"/api/{version}/applications/{app}/commands", "/api/{version}/applications/{app}/guilds/{guild}/commands"} {
		mux.HandleFunc("PUT "+path, s.putCommands)
		mux.HandleFunc("GET "+path, s.getCommands)
	}
	mux.HandleFunc("POST /api/{version}/webhooks/{app}/{token}", s.webhook)
	mux.HandleFunc("PATCH /api/{version}/webhooks/{app}/{token}/messages/{message}", s.webhook)
	mux.HandleFunc("DELETE /api/{version}/webhooks/{app}/{token}/messages/{message}", s.webhook)
	mux.HandleFunc("POST /api/{version}/channels/{channel}/messages", s.channelMessage)
	mux.HandleFunc("PATCH /api/{version}/channels/{channel}/messages/{message}", s.channelMessage)
}

// botAuth refuses, as Discord does with 401, a request without a bot
// token.
func (s *Server) botAuth(w http.ResponseWriter, r *http.Request) bool {
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bot ") {
		s.logf("%s %s: no bot token (401)", r.Method, r.URL.Path)
		w.WriteHeader(http.StatusUnauthorized)
		writeJSON(w, `{"message":"401: Unauthorized","code":0}`)
		return false
	}
	return true
}

// knownApp refuses, as Discord does with 404, a request for another
// application.
func (s *Server) knownApp(w http.ResponseWriter, r *http.Request) bool {
	if r.PathValue("app") != ApplicationID {
		s.logf("%s %s: unknown application (404; this fake's is %s)", r.Method, r.URL.Path, ApplicationID)
		w.WriteHeader(http.StatusNotFound)
		writeJSON(w, `{"message":"Unknown Application","code":10002}`)
		return false
	}
	return true
}

// putCommands answers a bulk overwrite: every command gets an id, and the
// list replaces the scope's.
func (s *Server) putCommands(w http.ResponseWriter, r *http.Request) {
	if !s.botAuth(w, r) || !s.knownApp(w, r) {
		return
	}
	body, _ := io.ReadAll(r.Body)
	var cmds []map[string]json.RawMessage
	if err := json.Unmarshal(body, &cmds); err != nil {
		s.logf("PUT %s: not a JSON array of commands (400)", r.URL.Path)
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, `{"message":"Invalid Form Body","code":50035}`)
		return
	}
	guild := r.PathValue("guild")
	reg := Registration{GuildID: guild, Auth: r.Header.Get("Authorization"), Body: body}
	out := make([]json.RawMessage, len(cmds))
	for i, c := range cmds {
		var name string
		_ = json.Unmarshal(c["name"], &name)
		reg.Names = append(reg.Names, name)
		c["id"] = json.RawMessage(strconv.Quote(s.newID()))
		c["application_id"] = json.RawMessage(strconv.Quote(ApplicationID))
		c["version"] = json.RawMessage(strconv.Quote(s.newID()))
		if guild != "" {
			c["guild_id"] = json.RawMessage(strconv.Quote(guild))
		}
		out[i], _ = json.Marshal(c)
	}
	s.mu.Lock()
	if s.rest.commands == nil {
		s.rest.commands = map[string][]json.RawMessage{}
	}
	s.rest.commands[guild] = out
	s.rest.registrations = append(s.rest.registrations, reg)
	s.mu.Unlock()
	scope := "globally"
	if guild != "" {
		scope = "in guild " + guild
	}
	s.logf("PUT %s: %d commands registered %s (%s)", r.URL.Path, len(cmds), scope, strings.Join(reg.Names, ", "))
	b, _ := json.Marshal(out)
	writeJSON(w, string(b))
}

// getCommands answers the scope's registered commands.
func (s *Server) getCommands(w http.ResponseWriter, r *http.Request) {
	if !s.botAuth(w, r) || !s.knownApp(w, r) {
		return
	}
	s.mu.Lock()
	cmds := s.rest.commands[r.PathValue("guild")]
	s.mu.Unlock()
	if cmds == nil {
		cmds = []json.RawMessage{}
	}
	b, _ := json.Marshal(cmds)
	writeJSON(w, string(b))
}

// webhook answers a follow-up (POST), an edit (PATCH) or a deletion
// (DELETE) through an interaction's webhook. No bot token is needed: the
// interaction's token in the URL authorises it.
func (s *Server) webhook(w http.ResponseWriter, r *http.Request) {
	m, err := readMessage(r)
	if err != nil {
		s.badForm(w, r, err)
		return
	}
	// Any application id: the interaction's own (interactions that tests
	// and people make up name others than ApplicationID).
	m.Route, m.ApplicationID, m.Token, m.MessageID = "webhook", r.PathValue("app"), r.PathValue("token"), r.PathValue("message")
	s.record(m)
	what := map[string]string{http.MethodPost: "follow-up", http.MethodPatch: "edit of " + m.MessageID, http.MethodDelete: "deletion of " + m.MessageID}[r.Method]
	s.logf("%s /webhooks/%s/…: %s%s", r.Method, m.ApplicationID, what, describe(m))
	if r.Method == http.MethodDelete {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.answerMessage(w, m)
}

// channelMessage answers a new message (POST) or an edit (PATCH) in a
// channel, which needs the bot token: the tracker's.
func (s *Server) channelMessage(w http.ResponseWriter, r *http.Request) {
	if !s.botAuth(w, r) {
		return
	}
	m, err := readMessage(r)
	if err != nil {
		s.badForm(w, r, err)
		return
	}
	m.Route, m.ChannelID, m.MessageID = "channel", r.PathValue("channel"), r.PathValue("message")
	if m.MessageID == "" {
		m.MessageID = s.newID()
	}
	s.record(m)
	s.logf("%s /channels/%s/messages: message %s%s", r.Method, m.ChannelID, m.MessageID, describe(m))
	s.answerMessage(w, m)
}

// badForm refuses a body that is not a message, as Discord does.
func (s *Server) badForm(w http.ResponseWriter, r *http.Request, err error) {
	s.logf("%s %s: %v (400)", r.Method, r.URL.Path, err)
	w.WriteHeader(http.StatusBadRequest)
	writeJSON(w, `{"message":"Invalid Form Body","code":50035}`)
}

// answerMessage writes the message object Discord answers with.
func (s *Server) answerMessage(w http.ResponseWriter, m Message) {
	id := m.MessageID
	if id == "" || id == "@original" {
		id = s.newID()
	}
	channel := m.ChannelID
	if channel == "" {
		channel = "0"
	}
	b, _ := json.Marshal(map[string]any{"id": id, "channel_id": channel, "content": m.Content, "flags": m.Flags, "type": 0,
		"author": map[string]any{"id": ApplicationID, "username": "hpkeeper", "bot": true}, "timestamp": m.At.Format(time.RFC3339)})
	writeJSON(w, string(b))
}

// readMessage reads the message a request sends: JSON, or a multipart
// body's payload_json and the names of its files.
func readMessage(r *http.Request) (Message, error) {
	m := Message{Method: r.Method, Auth: r.Header.Get("Authorization"), At: time.Now()}
	if r.Method == http.MethodDelete {
		return m, nil
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "multipart/form-data" {
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return m, fmt.Errorf("multipart body: %w", err)
			}
			if p.FormName() == "payload_json" {
				m.Body, _ = io.ReadAll(p)
			} else if p.FileName() != "" {
				m.Files = append(m.Files, p.FileName())
			}
		}
	} else {
		m.Body, _ = io.ReadAll(r.Body)
	}
	if len(m.Body) == 0 {
		if len(m.Files) > 0 {
			return m, nil
		}
		return m, fmt.Errorf("empty message")
	}
	var msg struct {
		Content string `json:"content"`
		Flags   int    `json:"flags"`
	}
	if err := json.Unmarshal(m.Body, &msg); err != nil {
		return m, fmt.Errorf("message JSON: %w", err)
	}
	m.Content, m.Flags = msg.Content, msg.Flags
	return m, nil
}

// record keeps m for Messages.
func (s *Server) record(m Message) {
	s.mu.Lock()
	s.rest.messages = append(s.rest.messages, m)
	s.mu.Unlock()
}

// describe is the log's summary of a message: its first line, ephemeral,
// files.
func describe(m Message) string {
	var parts []string
	if m.Content != "" {
		first, _, more := strings.Cut(m.Content, "\n")
		if more {
			first += " …"
		}
		parts = append(parts, strconv.Quote(first))
	}
	if m.Flags&64 != 0 {
		parts = append(parts, "ephemeral")
	}
	if len(m.Files) > 0 {
		parts = append(parts, "files "+strings.Join(m.Files, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, "; ")
}

func (s *Server) newID() string {
	return strconv.FormatInt(1311000000000100000+s.rest.nextID.Add(1), 10)
}

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, body)
}

// jsonField returns the text of a top-level field of a JSON object ("?"
// when absent).
func jsonField(b []byte, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m[name] == nil {
		// A multipart callback: its payload_json holds the type.
		if i := strings.Index(string(b), `"`+name+`":`); i >= 0 {
			rest := string(b[i+len(name)+3:])
			if j := strings.IndexAny(rest, ",}"); j > 0 {
				return strings.TrimSpace(rest[:j])
			}
		}
		return "?"
	}
	return string(m[name])
}

// Registrations returns the bulk overwrites of commands received so far,
// in order.
func (s *Server) Registrations() []Registration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Registration(nil), s.rest.registrations...)
}

// Messages returns the messages sent or edited so far (webhooks and
// channels), in order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.rest.messages...)
}

// WaitMessages waits until at least n messages have been received, or
// timeout has passed, and returns them all.
func (s *Server) WaitMessages(n int, timeout time.Duration) []Message {
	deadline := time.Now().Add(timeout)
	for {
		ms := s.Messages()
		if len(ms) >= n || time.Now().After(deadline) {
			return ms
		}
		time.Sleep(20 * time.Millisecond)
	}
}
