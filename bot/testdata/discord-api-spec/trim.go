//go:build ignore

// trim writes openapi-subset.json, the part of Discord's OpenAPI
// specification (github.com/discord/discord-api-spec, specs/openapi.json)
// that spec_test.go validates hpkeeper's request bodies against: the bodies
// of the requests hpkeeper sends, by operation, and every schema they refer
// to. Run it from this directory on a copy of the spec:
//
//	go run trim.go -spec /path/to/openapi.json -commit <commit of the spec>
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
)

// bodies names each request body kept: the operation's path and method.
var bodies = map[string][2]string{
	"application-commands-bulk-overwrite": {"/applications/{application_id}/commands", "put"},
	"interaction-callback":                {"/interactions/{interaction_id}/{interaction_token}/callback", "post"},
	"webhook-execute":                     {"/webhooks/{webhook_id}/{webhook_token}", "post"},
	"webhook-message-edit":                {"/webhooks/{webhook_id}/{webhook_token}/messages/@original", "patch"},
	"channel-message-create":              {"/channels/{channel_id}/messages", "post"},
	"channel-message-edit":                {"/channels/{channel_id}/messages/{message_id}", "patch"},
}

func main() {
	specPath := flag.String("spec", "", "Discord's specs/openapi.json")
	commit := flag.String("commit", "", "the commit of discord/discord-api-spec it comes from")
	flag.Parse()
	raw, err := os.ReadFile(*specPath)
	if err != nil {
		log.Fatal(err)
	}
	var spec struct {
		OpenAPI    string                                `json:"openapi"`
		Info       map[string]any                        `json:"info"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		log.Fatal(err)
	}
	out := map[string]any{}
	keep := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					name, ok := strings.CutPrefix(s, "#/components/schemas/")
					if !ok {
						log.Fatalf("unexpected $ref %s", s)
					}
					if !keep[name] {
						keep[name] = true
						visit(spec.Components.Schemas[name])
					}
					continue
				}
				visit(x)
			}
		case []any:
			for _, x := range v {
				visit(x)
			}
		}
	}
	for name, op := range bodies {
		var o struct {
			RequestBody struct {
				Content map[string]struct {
					Schema any `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		}
		if err := json.Unmarshal(spec.Paths[op[0]][op[1]], &o); err != nil {
			log.Fatalf("%s %s: %v", op[1], op[0], err)
		}
		schema := o.RequestBody.Content["application/json"].Schema
		if schema == nil {
			log.Fatalf("%s %s has no JSON request body", op[1], op[0])
		}
		out[name] = schema
		visit(schema)
	}
	schemas := map[string]any{}
	names := make([]string, 0, len(keep))
	for n := range keep {
		schemas[n] = spec.Components.Schemas[n]
		names = append(names, n)
	}
	sort.Strings(names)
	doc := map[string]any{
		"$comment": "A subset of Discord's OpenAPI specification: the request bodies hpkeeper sends and the schemas they refer to. Written by trim.go; see README.md.",
		"x-source": map[string]any{
			"repository": "github.com/discord/discord-api-spec",
			"file":       "specs/openapi.json",
			"commit":     *commit,
			"openapi":    spec.OpenAPI,
			"info":       spec.Info,
			"operations": bodies,
		},
		"bodies":     out,
		"components": map[string]any{"schemas": schemas},
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("openapi-subset.json", append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bodies, %d schemas, %d bytes\n", len(out), len(names), len(b)+1)
}
