package generator

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"marketplace/internal/listings"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var oaiSlugs = []string{"electronics", "electronics-phones", "clothing-shoes", "home"}

const oaiKey = "sk-test-secret-key"

// oaiFallback stands in for the built-in generator and records its calls.
type oaiFallback struct {
	mu     sync.Mutex
	calls  int
	briefs []listings.Brief
	err    error
}

func (f *oaiFallback) Generate(_ context.Context, b listings.Brief) (listings.Draft, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.briefs = append(f.briefs, b)
	if f.err != nil {
		return listings.Draft{}, f.err
	}
	return listings.Draft{Title: "fallback title", Generator: "fake-fallback"}, nil
}

func (f *oaiFallback) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// oaiServer is a local chat-completions server; handle answers each request and
// the server keeps what it received.
type oaiServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []oaiRecorded
}

type oaiRecorded struct {
	method, path string
	header       http.Header
	body         []byte
}

func newOAIServer(t *testing.T, handle http.HandlerFunc) *oaiServer {
	t.Helper()
	f := &oaiServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.requests = append(f.requests, oaiRecorded{r.Method, r.URL.Path, r.Header.Clone(), body})
		f.mu.Unlock()
		handle(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *oaiServer) last(t *testing.T) oaiRecorded {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("the fake AI server got no request")
	}
	return f.requests[len(f.requests)-1]
}

func (f *oaiServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// oaiGoodDraft is a valid model output; tests change one field at a time.
func oaiGoodDraft() map[string]any {
	return map[string]any{
		"title":         "Apple iPhone 12 64GB Blue",
		"description":   "Unlocked iPhone 12 in blue with light wear on the frame.",
		"category_slug": "electronics-phones",
		"condition":     "good",
		"brand":         "Apple",
		"price_cents":   32000,
		"weight_oz":     12,
		"dimensions":    map[string]any{"l": 7, "w": 4, "h": 2.5},
	}
}

func oaiWith(key string, v any) map[string]any {
	m := oaiGoodDraft()
	m[key] = v
	return m
}

// completion wraps content the way the chat-completions API answers.
func oaiCompletion(content any, refusal any) []byte {
	b, _ := json.Marshal(map[string]any{
		"id":      "chatcmpl-test",
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   "test-model",
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": refusal},
			"finish_reason": "stop",
		}},
	})
	return b
}

func oaiContent(draft map[string]any) string {
	b, _ := json.Marshal(draft)
	return string(b)
}

func oaiReply(status int, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
}

func oaiBrief() listings.Brief {
	return listings.Brief{
		Description: "iphone 12, 64gb, blue, works fine",
		Images: []listings.Image{
			{MIME: "image/jpeg", Data: []byte("\xff\xd8\xff jpeg bytes one")},
			{MIME: "image/png", Data: []byte("\x89PNG png bytes two")},
		},
	}
}

func newOAIGen(t *testing.T, url, key string, timeout time.Duration, fb listings.Generator, log *slog.Logger) listings.Generator {
	t.Helper()
	g := NewOpenAI(OpenAIConfig{URL: url, Model: "test-model", Key: key, Timeout: timeout, Logger: log}, oaiSlugs, fb)
	if _, ok := g.(*openAIGenerator); !ok {
		t.Fatalf("NewOpenAI returned %T, want the OpenAI adapter", g)
	}
	return g
}

func TestOpenAIRequestShape(t *testing.T) {
	for name, tc := range map[string]struct {
		base, key string
		brief     listings.Brief
	}{
		"key, no trailing slash": {base: "/v1", key: oaiKey, brief: oaiBrief()},
		"key, trailing slash":    {base: "/v1/", key: oaiKey, brief: oaiBrief()},
		"no key sends no header": {base: "/v1", key: "", brief: oaiBrief()},
		"seller fields in prompt": {base: "/v1", key: oaiKey, brief: func() listings.Brief {
			b := oaiBrief()
			p := int64(4500)
			b.Price, b.Condition, b.Category = &p, "fair", "home"
			return b
		}()},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newOAIServer(t, oaiReply(200, oaiCompletion(oaiContent(oaiGoodDraft()), nil)))
			g := newOAIGen(t, srv.URL+tc.base, tc.key, time.Second, &oaiFallback{}, nil)
			if _, err := g.Generate(context.Background(), tc.brief); err != nil {
				t.Fatal(err)
			}
			req := srv.last(t)
			if req.method != http.MethodPost || req.path != "/v1/chat/completions" {
				t.Errorf("request = %s %s, want POST /v1/chat/completions", req.method, req.path)
			}
			if got := req.header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q", got)
			}
			auth, hasAuth := req.header["Authorization"]
			if tc.key == "" && hasAuth {
				t.Errorf("Authorization sent without a key: %q", auth)
			}
			if tc.key != "" && req.header.Get("Authorization") != "Bearer "+tc.key {
				t.Errorf("Authorization = %q, want Bearer key", req.header.Get("Authorization"))
			}

			var body struct {
				Model          string  `json:"model"`
				Temperature    float64 `json:"temperature"`
				ResponseFormat struct {
					Type       string `json:"type"`
					JSONSchema struct {
						Name   string         `json:"name"`
						Strict bool           `json:"strict"`
						Schema map[string]any `json:"schema"`
					} `json:"json_schema"`
				} `json:"response_format"`
				Messages []struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(req.body, &body); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			if body.Model != "test-model" || body.Temperature != 0.2 {
				t.Errorf("model %q temperature %v", body.Model, body.Temperature)
			}
			rf := body.ResponseFormat
			if rf.Type != "json_schema" || rf.JSONSchema.Name != "listing_draft" || !rf.JSONSchema.Strict {
				t.Errorf("response_format = %+v", rf)
			}
			checkOAISchema(t, rf.JSONSchema.Schema)

			if len(body.Messages) != 2 || body.Messages[0].Role != "system" || body.Messages[1].Role != "user" {
				t.Fatalf("messages = %s", req.body)
			}
			var system string
			if err := json.Unmarshal(body.Messages[0].Content, &system); err != nil || !strings.Contains(system, "clothing-shoes") {
				t.Errorf("system prompt %q does not list the slugs (%v)", system, err)
			}
			var parts []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL *struct {
					URL    string `json:"url"`
					Detail string `json:"detail"`
				} `json:"image_url"`
			}
			if err := json.Unmarshal(body.Messages[1].Content, &parts); err != nil {
				t.Fatalf("user content is not parts: %v", err)
			}
			if len(parts) != 1+len(tc.brief.Images) || parts[0].Type != "text" {
				t.Fatalf("user parts = %+v", parts)
			}
			text := parts[0].Text
			if !strings.Contains(text, tc.brief.Description) {
				t.Errorf("text part %q lacks the description", text)
			}
			for field, want := range map[string]string{"condition": tc.brief.Condition, "category": tc.brief.Category} {
				if want != "" && !strings.Contains(text, want) {
					t.Errorf("text part lacks the seller's %s %q: %q", field, want, text)
				}
			}
			if tc.brief.Price != nil && !strings.Contains(text, "4500") {
				t.Errorf("text part lacks the seller's price: %q", text)
			}
			if tc.brief.Price == nil && strings.Contains(text, "price") {
				t.Errorf("text part mentions a price the seller did not give: %q", text)
			}
			for i, img := range tc.brief.Images {
				p := parts[i+1]
				want := "data:" + img.MIME + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
				if p.Type != "image_url" || p.ImageURL == nil || p.ImageURL.URL != want || p.ImageURL.Detail != "low" {
					t.Errorf("image part %d = %+v, want url %q detail low", i, p, want)
				}
			}
		})
	}
}

func checkOAISchema(t *testing.T, s map[string]any) {
	t.Helper()
	props, _ := s["properties"].(map[string]any)
	want := []string{"title", "description", "category_slug", "condition", "brand", "price_cents", "weight_oz", "dimensions"}
	var required []string
	for _, r := range s["required"].([]any) {
		required = append(required, r.(string))
	}
	if !reflect.DeepEqual(required, want) || len(props) != len(want) || s["additionalProperties"] != false {
		t.Errorf("schema required %v, %d properties, additionalProperties %v", required, len(props), s["additionalProperties"])
	}
	enum := func(p string) []string {
		var out []string
		for _, v := range props[p].(map[string]any)["enum"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	if got := enum("category_slug"); !reflect.DeepEqual(got, oaiSlugs) {
		t.Errorf("category_slug enum = %v, want %v", got, oaiSlugs)
	}
	if got := enum("condition"); !reflect.DeepEqual(got, listings.AllConditions) {
		t.Errorf("condition enum = %v", got)
	}
	price := props["price_cents"].(map[string]any)
	if price["type"] != "integer" || price["minimum"] != float64(100) {
		t.Errorf("price_cents = %v", price)
	}
	dims := props["dimensions"].(map[string]any)
	if dims["additionalProperties"] != false || len(dims["required"].([]any)) != 3 {
		t.Errorf("dimensions = %v", dims)
	}
}

func TestOpenAIParsesDraft(t *testing.T) {
	long := strings.Repeat("é", 100)
	for name, tc := range map[string]struct {
		content string
		brief   func(*listings.Brief)
		want    listings.Draft
	}{
		"plain": {
			content: oaiContent(oaiGoodDraft()),
			want: listings.Draft{Title: "Apple iPhone 12 64GB Blue", Description: "Unlocked iPhone 12 in blue with light wear on the frame.",
				CategorySlug: "electronics-phones", Condition: "good", Brand: "Apple", Price: 32000, PriceSource: "ai",
				WeightOz: 12, Dimensions: listings.Dimensions{L: 7, W: 4, H: 2.5}, Generator: "openai:test-model"},
		},
		"title cut to 80 runes, whitespace folded": {
			content: oaiContent(oaiWith("title", "  "+long+"\n")),
			want: listings.Draft{Title: strings.Repeat("é", 80), Description: "Unlocked iPhone 12 in blue with light wear on the frame.",
				CategorySlug: "electronics-phones", Condition: "good", Brand: "Apple", Price: 32000, PriceSource: "ai",
				WeightOz: 12, Dimensions: listings.Dimensions{L: 7, W: 4, H: 2.5}, Generator: "openai:test-model"},
		},
		"fenced JSON and integral float": {
			content: "```json\n" + oaiContent(oaiWith("price_cents", 32000.0)) + "\n```",
			want: listings.Draft{Title: "Apple iPhone 12 64GB Blue", Description: "Unlocked iPhone 12 in blue with light wear on the frame.",
				CategorySlug: "electronics-phones", Condition: "good", Brand: "Apple", Price: 32000, PriceSource: "ai",
				WeightOz: 12, Dimensions: listings.Dimensions{L: 7, W: 4, H: 2.5}, Generator: "openai:test-model"},
		},
		"seller fields override the model's": {
			content: oaiContent(oaiGoodDraft()),
			brief:   func(b *listings.Brief) { p := int64(4500); b.Price, b.Condition, b.Category = &p, "fair", "home" },
			want: listings.Draft{Title: "Apple iPhone 12 64GB Blue", Description: "Unlocked iPhone 12 in blue with light wear on the frame.",
				CategorySlug: "home", Condition: "fair", Brand: "Apple", Price: 4500, PriceSource: "seller",
				WeightOz: 12, Dimensions: listings.Dimensions{L: 7, W: 4, H: 2.5}, Generator: "openai:test-model"},
		},
		"seller fields excuse the model's bad ones": {
			content: func() string {
				m := oaiGoodDraft()
				m["category_slug"], m["condition"], m["price_cents"] = "nope", "mint", -5
				return oaiContent(m)
			}(),
			brief: func(b *listings.Brief) {
				p := int64(100)
				b.Price, b.Condition, b.Category = &p, "like_new", "electronics"
			},
			want: listings.Draft{Title: "Apple iPhone 12 64GB Blue", Description: "Unlocked iPhone 12 in blue with light wear on the frame.",
				CategorySlug: "electronics", Condition: "like_new", Brand: "Apple", Price: 100, PriceSource: "seller",
				WeightOz: 12, Dimensions: listings.Dimensions{L: 7, W: 4, H: 2.5}, Generator: "openai:test-model"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newOAIServer(t, oaiReply(200, oaiCompletion(tc.content, nil)))
			fb := &oaiFallback{}
			g := newOAIGen(t, srv.URL+"/v1", oaiKey, time.Second, fb, nil)
			b := oaiBrief()
			if tc.brief != nil {
				tc.brief(&b)
			}
			got, err := g.Generate(context.Background(), b)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("draft =\n%+v\nwant\n%+v", got, tc.want)
			}
			if fb.count() != 0 {
				t.Error("fallback called on a good answer")
			}
		})
	}
}

func TestOpenAIFallsBack(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}
	for name, tc := range map[string]struct {
		handle http.HandlerFunc
		reason string
	}{
		"500":                 {oaiReply(500, []byte(`{"error":{"message":"boom","type":"server_error","code":null}}`)), "status"},
		"503 no body":         {oaiReply(503, nil), "status"},
		"429":                 {oaiReply(429, []byte(`{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`)), "status"},
		"401":                 {oaiReply(401, []byte(`{"error":{"message":"Incorrect API key provided: sk-te***key"}}`)), "status"},
		"timeout":             {hang, "timeout"},
		"malformed body":      {oaiReply(200, []byte(`{"choices": [`)), "bad_response"},
		"html body":           {oaiReply(200, []byte(`<html>gateway</html>`)), "bad_response"},
		"empty choices":       {oaiReply(200, []byte(`{"choices": []}`)), "empty"},
		"null content":        {oaiReply(200, oaiCompletion(nil, nil)), "empty"},
		"content not JSON":    {oaiReply(200, oaiCompletion("Here is your listing: a nice phone.", nil)), "bad_json"},
		"content wrong shape": {oaiReply(200, oaiCompletion(`["title"]`, nil)), "bad_json"},
		"refusal":             {oaiReply(200, oaiCompletion(nil, "I can't help with that.")), "refusal"},
		"unknown slug":        {oaiReply(200, oaiCompletion(oaiContent(oaiWith("category_slug", "weapons")), nil)), "invalid"},
		"unknown condition":   {oaiReply(200, oaiCompletion(oaiContent(oaiWith("condition", "mint")), nil)), "invalid"},
		"negative price":      {oaiReply(200, oaiCompletion(oaiContent(oaiWith("price_cents", -100)), nil)), "invalid"},
		"price below $1":      {oaiReply(200, oaiCompletion(oaiContent(oaiWith("price_cents", 99)), nil)), "invalid"},
		"fractional price":    {oaiReply(200, oaiCompletion(oaiContent(oaiWith("price_cents", 1999.5)), nil)), "invalid"},
		"price as string":     {oaiReply(200, oaiCompletion(oaiContent(oaiWith("price_cents", "cheap")), nil)), "bad_json"},
		"missing price":       {oaiReply(200, oaiCompletion(func() string { m := oaiGoodDraft(); delete(m, "price_cents"); return oaiContent(m) }(), nil)), "invalid"},
		"empty title":         {oaiReply(200, oaiCompletion(oaiContent(oaiWith("title", "   ")), nil)), "invalid"},
		"empty description":   {oaiReply(200, oaiCompletion(oaiContent(oaiWith("description", "")), nil)), "invalid"},
		"zero weight":         {oaiReply(200, oaiCompletion(oaiContent(oaiWith("weight_oz", 0)), nil)), "invalid"},
		"missing dimensions":  {oaiReply(200, oaiCompletion(func() string { m := oaiGoodDraft(); delete(m, "dimensions"); return oaiContent(m) }(), nil)), "invalid"},
		"negative dimension":  {oaiReply(200, oaiCompletion(oaiContent(oaiWith("dimensions", map[string]any{"l": 7, "w": -1, "h": 2})), nil)), "invalid"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := newOAIServer(t, tc.handle)
			fb := &oaiFallback{}
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			g := newOAIGen(t, srv.URL+"/v1", oaiKey, 100*time.Millisecond, fb, log)
			b := oaiBrief()

			start := time.Now()
			got, err := g.Generate(context.Background(), b)
			if err != nil {
				t.Fatalf("err = %v, want the fallback's draft", err)
			}
			if elapsed := time.Since(start); elapsed > 2*time.Second {
				t.Errorf("took %s despite a 100ms timeout", elapsed)
			}
			if got.Generator != "fake-fallback" || fb.count() != 1 {
				t.Fatalf("draft %+v after %d fallback calls, want the fallback's", got, fb.count())
			}
			if !reflect.DeepEqual(fb.briefs[0], b) {
				t.Error("fallback did not get the same brief")
			}
			out := logs.String()
			if !strings.Contains(out, "level=WARN") || !strings.Contains(out, "reason="+tc.reason) {
				t.Errorf("log %q lacks a warning with reason=%s", out, tc.reason)
			}
			for _, secret := range []string{oaiKey, "sk-te***key", base64.StdEncoding.EncodeToString(b.Images[0].Data)} {
				if strings.Contains(out, secret) {
					t.Errorf("log leaks %q: %s", secret, out)
				}
			}
		})
	}
}

func TestOpenAITransportErrorFallsBack(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	fb := &oaiFallback{}
	var logs bytes.Buffer
	g := newOAIGen(t, url+"/v1", oaiKey, time.Second, fb, slog.New(slog.NewTextHandler(&logs, nil)))
	got, err := g.Generate(context.Background(), oaiBrief())
	if err != nil || got.Generator != "fake-fallback" {
		t.Fatalf("got %+v, %v; want the fallback's draft", got, err)
	}
	if !strings.Contains(logs.String(), "reason=transport") {
		t.Errorf("log = %q", logs.String())
	}
}

func TestOpenAIFallbackErrorIsReturned(t *testing.T) {
	srv := newOAIServer(t, oaiReply(500, nil))
	boom := errors.New("fallback broke")
	g := newOAIGen(t, srv.URL, "", time.Second, &oaiFallback{err: boom}, nil)
	if _, err := g.Generate(context.Background(), oaiBrief()); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the fallback's", err)
	}
}

func TestOpenAIContextCancelled(t *testing.T) {
	t.Run("before the call", func(t *testing.T) {
		srv := newOAIServer(t, oaiReply(200, oaiCompletion(oaiContent(oaiGoodDraft()), nil)))
		fb := &oaiFallback{}
		g := newOAIGen(t, srv.URL, oaiKey, time.Second, fb, nil)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := g.Generate(ctx, oaiBrief()); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if srv.count() != 0 || fb.count() != 0 {
			t.Errorf("server got %d requests, fallback %d calls; want none", srv.count(), fb.count())
		}
	})
	t.Run("during the call", func(t *testing.T) {
		arrived := make(chan struct{})
		srv := newOAIServer(t, func(w http.ResponseWriter, r *http.Request) {
			close(arrived)
			<-r.Context().Done()
		})
		fb := &oaiFallback{}
		g := newOAIGen(t, srv.URL, oaiKey, 10*time.Second, fb, nil)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		start := time.Now()
		if _, err := g.Generate(ctx, oaiBrief()); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if time.Since(start) > 5*time.Second || fb.count() != 0 {
			t.Errorf("took %s, fallback called %d times; want prompt return, no fallback", time.Since(start), fb.count())
		}
	})
}

func TestOpenAIDisabledReturnsFallback(t *testing.T) {
	fb := &oaiFallback{}
	for name, tc := range map[string]struct {
		cfg   OpenAIConfig
		slugs []string
	}{
		"no URL":        {OpenAIConfig{Model: "m"}, oaiSlugs},
		"no model":      {OpenAIConfig{URL: "http://127.0.0.1:1/v1"}, oaiSlugs},
		"no categories": {OpenAIConfig{URL: "http://127.0.0.1:1/v1", Model: "m"}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			if g := NewOpenAI(tc.cfg, tc.slugs, fb); g != listings.Generator(fb) {
				t.Errorf("NewOpenAI = %T, want the fallback itself", g)
			}
		})
	}
}

func TestOpenAIDefaultTimeout(t *testing.T) {
	g := NewOpenAI(OpenAIConfig{URL: "http://x/v1", Model: "m"}, oaiSlugs, &oaiFallback{}).(*openAIGenerator)
	if g.timeout != 20*time.Second || g.client == nil {
		t.Errorf("timeout %s client %v", g.timeout, g.client)
	}
}
