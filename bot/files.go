package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/rs/zerolog"

	"github.com/hpkeeper/hpkeeper/commands"
)

// Files (commands.Response.Files) travel differently by transport. The
// gateway sends them with the interaction callback as a multipart body. The
// HTTP endpoint answers inline with JSON, which cannot carry files, and
// then posts them as a follow-up message through the interaction's webhook
// (POST /webhooks/{application id}/{interaction token}: the token
// authorises it, no bot token is sent).
//
// Attachments users give (commands.Request.Attachments) are downloaded from
// Discord's CDN before the handler runs; no other host is ever fetched.

// Limits of files.
const (
	// MaxAttachmentBytes is the largest attachment downloaded.
	MaxAttachmentBytes = commands.MaxFileSize
	// followUpTimeout bounds the whole follow-up, retries included.
	followUpTimeout = 30 * time.Second
	// followUpAttempts is how often a follow-up is tried: Discord may not
	// know the interaction until it has read the inline answer.
	followUpAttempts = 4
)

// attachmentHosts are the hosts attachments are downloaded from.
var attachmentHosts = map[string]bool{"cdn.discordapp.com": true, "media.discordapp.net": true}

// discordFiles converts a response's files for discordgo.
func discordFiles(fs []commands.File) []*discordgo.File {
	if len(fs) == 0 {
		return nil
	}
	out := make([]*discordgo.File, len(fs))
	for i, f := range fs {
		out[i] = &discordgo.File{Name: f.Name, ContentType: f.ContentType, Reader: bytes.NewReader(f.Data)}
	}
	return out
}

// fileData is a file read into memory, for bodies built more than once.
type fileData struct {
	name, contentType string
	data              []byte
}

// readFiles reads the files of resp (discordgo.InteractionResponseData.Files
// is not encoded to JSON: see ResponseFrom).
func readFiles(resp *discordgo.InteractionResponse) ([]fileData, error) {
	if resp == nil || resp.Data == nil {
		return nil, nil
	}
	var out []fileData
	for _, f := range resp.Data.Files {
		if f == nil || f.Reader == nil {
			continue
		}
		b, err := io.ReadAll(f.Reader)
		if err != nil {
			return nil, fmt.Errorf("read file %s: %w", f.Name, err)
		}
		out = append(out, fileData{name: f.Name, contentType: f.ContentType, data: b})
	}
	return out, nil
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

// multipartBody is Discord's multipart form: payload_json, then files[n].
func multipartBody(payload []byte, files []fileData) (contentType string, body []byte, err error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", `form-data; name="payload_json"`)
	h.Set("Content-Type", "application/json")
	p, err := w.CreatePart(h)
	if err != nil {
		return "", nil, err
	}
	if _, err := p.Write(payload); err != nil {
		return "", nil, err
	}
	for i, f := range files {
		h := make(textproto.MIMEHeader)
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="files[%d]"; filename="%s"`, i, quoteEscaper.Replace(f.name)))
		ct := f.contentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		p, err := w.CreatePart(h)
		if err != nil {
			return "", nil, err
		}
		if _, err := p.Write(f.data); err != nil {
			return "", nil, err
		}
	}
	if err := w.Close(); err != nil {
		return "", nil, err
	}
	return w.FormDataContentType(), buf.Bytes(), nil
}

// callbackBody encodes an interaction callback: JSON (EncodeResponse), or a
// multipart body with the JSON as payload_json when resp carries files.
func callbackBody(resp *discordgo.InteractionResponse) (contentType string, body []byte, err error) {
	body, err = EncodeResponse(resp)
	if err != nil {
		return "", nil, err
	}
	files, err := readFiles(resp)
	if err != nil || len(files) == 0 {
		return "application/json", body, err
	}
	return multipartBody(body, files)
}

// followUps sends files as follow-up messages for the HTTP endpoint.
type followUps struct {
	client *http.Client
	wg     sync.WaitGroup
}

// WithFilesClient makes the Endpoint post follow-up messages and download
// attachments with c (tests point it at a fake Discord).
func WithFilesClient(c *http.Client) EndpointOption {
	return func(e *Endpoint) { e.followUps.client = c }
}

// Wait waits for the follow-ups in flight.
func (e *Endpoint) Wait() { e.followUps.wg.Wait() }

func (f *followUps) httpClient() *http.Client {
	if f.client != nil {
		return f.client
	}
	return http.DefaultClient
}

// sendLater posts the files of r's response, the inline answer to i, as a
// follow-up message, then r's follow-up messages (followups.go), from a
// goroutine, so that they follow the inline answer; then it calls done with
// the first failure (nil: all sent), at once when there is nothing to send.
func (f *followUps) sendLater(log zerolog.Logger, i *discordgo.Interaction, r reply, done func(error)) {
	files, err := readFiles(r.resp)
	if err != nil {
		log.Error().Err(err).Msg("cannot read files of the answer")
		files = nil
	}
	if len(files) == 0 && len(r.followUps) == 0 {
		done(err)
		return
	}
	ephemeral := r.resp.Data != nil && r.resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer contain(log, "follow-up")
		ctx, cancel := context.WithTimeout(context.Background(), followUpTimeout)
		defer cancel()
		var first error
		if len(files) > 0 {
			if first = sendFollowUp(ctx, f.httpClient(), i, files, ephemeral); first != nil {
				log.Error().Err(first).Int("files", len(files)).Msg("cannot send files as a follow-up message")
			}
		}
		if err := sendFollowUps(ctx, f.httpClient(), log, i, r.followUps); first == nil {
			first = err
		}
		done(first)
	}()
}

// sendFollowUp posts files as a follow-up message of interaction i through
// its webhook (see webhookCall for the retries).
func sendFollowUp(ctx context.Context, c *http.Client, i *discordgo.Interaction, files []fileData, ephemeral bool) error {
	var flags discordgo.MessageFlags
	if ephemeral {
		flags = discordgo.MessageFlagsEphemeral
	}
	payload, err := json.Marshal(webhookMessage{Embeds: []*discordgo.MessageEmbed{}, Components: []discordgo.MessageComponent{}, Flags: flags})
	if err != nil {
		return err
	}
	ct, body, err := multipartBody(payload, files)
	if err != nil {
		return err
	}
	return webhookCall(ctx, c, http.MethodPost, discordgo.EndpointWebhookToken(i.AppID, i.Token), ct, body)
}

// webhookMessage is the JSON body of a message sent or edited through an
// interaction's webhook (follow-ups, edits of the original response): it
// never parses mentions and pings only the users AllowedMentions lists (a
// late answer's init-ping). Flags is omitted when 0 (an edit may not set
// ephemeral).
type webhookMessage struct {
	Content         string                       `json:"content"`
	Embeds          []*discordgo.MessageEmbed    `json:"embeds"`
	Components      []discordgo.MessageComponent `json:"components"`
	AllowedMentions noMentions                   `json:"allowed_mentions"`
	Flags           discordgo.MessageFlags       `json:"flags,omitempty"`
}

// webhookCall sends one request to an interaction's webhook (the token in
// endpoint authorises it; no bot token is sent): method with body of type ct
// (none when body is nil). It retries, up to followUpAttempts in all with
// growing pauses, while Discord does not know the interaction yet (404: it
// may not have read the first answer) or fails (5xx, network), and returns
// the last error, which names no token.
func webhookCall(ctx context.Context, c *http.Client, method, endpoint, ct string, body []byte) error {
	wait := 250 * time.Millisecond
	for attempt := 1; ; attempt++ {
		retry, err := webhookOnce(ctx, c, method, endpoint, ct, body)
		if err == nil || !retry || attempt == followUpAttempts {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("webhook %s: %w", method, ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func webhookOnce(ctx context.Context, c *http.Client, method, endpoint, ct string, body []byte) (retry bool, err error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, endpoint, rd)
	if err != nil {
		return false, fmt.Errorf("webhook %s: %w", method, redactErr(err))
	}
	if body != nil {
		req.Header.Set("Content-Type", ct)
	}
	res, err := c.Do(req)
	if err != nil {
		return true, fmt.Errorf("webhook %s: %w", method, redactErr(err))
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return res.StatusCode == http.StatusNotFound || res.StatusCode >= 500,
			fmt.Errorf("webhook %s: HTTP %d: %s", method, res.StatusCode, bytes.TrimSpace(msg))
	}
	return false, nil
}

// attachmentOption records the attachment an attachment option names (its
// value is the attachment's id in the resolved data), and puts the file's
// name in the option's text.
func attachmentOption(r *commands.Request, o *discordgo.ApplicationCommandInteractionDataOption, res *discordgo.ApplicationCommandInteractionDataResolved) {
	if o.Type != discordgo.ApplicationCommandOptionAttachment {
		return
	}
	id := r.Options[o.Name]
	if res == nil || res.Attachments[id] == nil {
		return
	}
	a := res.Attachments[id]
	if r.Attachments == nil {
		r.Attachments = map[string]*commands.Attachment{}
	}
	r.Attachments[o.Name] = &commands.Attachment{Filename: a.Filename, URL: a.URL, Size: a.Size}
	r.Options[o.Name] = a.Filename
}

// errAttachmentHost is the error for an attachment URL not on Discord's CDN.
var errAttachmentHost = errors.New("attachment is not on Discord's CDN")

// fetchAttachments gives each attachment of r a Fetch that downloads it
// (at most MaxAttachmentBytes, from Discord's CDN only) when the handler
// needs it, after its permission checks.
func fetchAttachments(_ context.Context, c *http.Client, log zerolog.Logger, r *commands.Request) {
	for name, a := range r.Attachments {
		if a == nil || a.Data != nil || a.URL == "" {
			continue
		}
		url := a.URL
		a.Fetch = func(ctx context.Context) ([]byte, error) {
			data, err := download(ctx, c, url)
			if err != nil {
				log.Warn().Err(err).Str("option", name).Msg("cannot download attachment")
			}
			return data, err
		}
	}
}

func download(ctx context.Context, c *http.Client, raw string) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || !attachmentHosts[u.Hostname()] || u.Port() != "" || u.User != nil {
		return nil, errAttachmentHost
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	// Never follow a redirect off the CDN.
	cc := *c
	cc.CheckRedirect = func(r *http.Request, _ []*http.Request) error {
		if r.URL.Scheme != "https" || !attachmentHosts[r.URL.Hostname()] {
			return errAttachmentHost
		}
		return nil
	}
	res, err := cc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download attachment: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download attachment: HTTP %d", res.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, MaxAttachmentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("download attachment: %w", err)
	}
	if len(b) > MaxAttachmentBytes {
		return nil, fmt.Errorf("download attachment: more than %d bytes", MaxAttachmentBytes)
	}
	return b, nil
}

// filesClientKey carries the HTTP client for attachments in a context.
type filesClientKey struct{}

// withFilesClient returns ctx carrying c, the client dispatch downloads
// attachments with.
func withFilesClient(ctx context.Context, c *http.Client) context.Context {
	return context.WithValue(ctx, filesClientKey{}, c)
}

func filesClient(ctx context.Context) *http.Client {
	if c, ok := ctx.Value(filesClientKey{}).(*http.Client); ok && c != nil {
		return c
	}
	return http.DefaultClient
}
