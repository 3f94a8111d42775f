package mcpserver_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/httpapi/mcpserver"
	"marketplace/internal/testkit"
)

// sameAsHTTP fails t unless a tool's answer is the data of the Variant B
// route's envelope.
func sameAsHTTP(t *testing.T, tool string, got map[string]any, r *testkit.Response) {
	t.Helper()
	want := r.Want(t, http.StatusOK, "").Data()
	if !equalJSON(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("%s answers\n%s\nthe route answers\n%s", tool, g, w)
	}
}

func items(t *testing.T, m map[string]any, key string) []any {
	t.Helper()
	v, ok := m[key].([]any)
	if !ok {
		t.Fatalf("%q is not a list in %v", key, m)
	}
	return v
}

// The selling tools end to end, over each transport: photos uploaded
// through upload URLs and sent inline, create, read, search, update,
// watch, price check, similar, archive; each answer as the route's.
func TestListingTools(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Seller")
		sellKey := s.NewKey(seller, "sell_only")
		buyKey := s.NewKey(s.VerifiedOwner("Buyer"), "buy_only")
		for _, tr := range transports {
			word := map[string]string{"http": "walnut", "memory": "maple"}[tr.name]
			sell, buy := tr.open(t, s, sellKey.Secret), tr.open(t, s, buyKey.Secret)

			// Upload URLs, then a PUT of the raw bytes, then create.
			slots := call(t, sell, "get_photo_upload_urls", map[string]any{"count": 2}).want(t, "get_photo_upload_urls", "").Data
			if !strings.Contains(slots["how_to"].(string), "PUT") {
				t.Fatalf("how_to %v", slots)
			}
			var ids []any
			for _, u := range items(t, slots, "uploads") {
				slot := u.(map[string]any)
				s.Do("PUT", s.Path(slot["upload_url"].(string)), testkit.JPEG(64, 48),
					testkit.Header{Name: "Content-Type", Value: "image/jpeg"}).Want(t, http.StatusOK, "")
				ids = append(ids, slot["photo_id"])
			}
			created := call(t, sell, "create_listing", map[string]any{
				"brief_description": "Solid " + word + " bookshelf, five shelves, light scratches",
				"photo_ids":         ids, "condition": "good", "price": 12000, "floor_price": 9000,
				"category_id": "furniture", "shipping_type": "flat_rate", "shipping_cost": 2500,
				"dimensions": map[string]any{"l": 30, "w": 12, "h": 60}, "weight_oz": 800,
			}).want(t, "create_listing", "").Data
			id := created["id"].(string)
			if created["status"] != "active" || created["price"] != 12000.0 || created["floor_price"] != 9000.0 ||
				len(items(t, created, "photos")) != 2 || created["category_id"] == nil {
				t.Fatalf("created %v", created)
			}

			// Inline photos: base64 (and a data: URL), checked like uploads.
			jpeg := base64.StdEncoding.EncodeToString(testkit.JPEG(80, 60))
			inline := call(t, sell, "create_listing", map[string]any{
				"brief_description": word + " side table", "photos": []any{jpeg, "data:image/jpeg;base64," + jpeg},
				"condition": "like_new", "price": 4000,
			}).want(t, "create_listing", "").Data
			if len(items(t, inline, "photos")) != 2 {
				t.Fatalf("inline photos %v", inline)
			}
			s.Do("GET", s.Path(items(t, inline, "photos")[1].(string)), nil).Want(t, http.StatusOK, "")
			for _, bad := range []map[string]any{
				{"brief_description": "no photos"},
				{"brief_description": "both", "photos": []any{jpeg}, "photo_ids": ids},
				{"brief_description": "not base64", "photos": []any{"%%%"}},
				{"brief_description": "not an image", "photos": []any{base64.StdEncoding.EncodeToString([]byte("hello, world"))}},
				{"brief_description": "unknown field", "photos": []any{jpeg}, "colour": "red"},
			} {
				call(t, sell, "create_listing", bad).want(t, "create_listing", "VALIDATION_ERROR")
			}

			// Reads answer what the routes answer.
			got := call(t, buy, "get_listing", map[string]any{"listing_id": id}).want(t, "get_listing", "").Data
			sameAsHTTP(t, "get_listing", got, s.Do("GET", "/v1/listings/"+id, nil, buyKey.Auth()))
			if _, ok := got["floor_price"]; ok {
				t.Fatalf("a buyer sees the floor price: %v", got)
			}
			found := call(t, buy, "search_listings", map[string]any{"q": word + " bookshelf", "category": "furniture",
				"condition": []any{"good"}, "max_price": 20000, "sort": "newest", "limit": 5}).want(t, "search_listings", "").Data
			sameAsHTTP(t, "search_listings", found,
				s.Do("GET", "/v1/search?q="+word+"+bookshelf&category=furniture&condition=good&max_price=20000&sort=newest&limit=5", nil, buyKey.Auth()))
			if found["total"] != 1.0 {
				t.Fatalf("search %v", found)
			}
			call(t, buy, "search_listings", map[string]any{"min_price": 10, "max_price": 5}).want(t, "search_listings", "VALIDATION_ERROR")
			call(t, buy, "search_listings", map[string]any{"limit": 51}).want(t, "search_listings", "VALIDATION_ERROR")

			cats := call(t, buy, "get_categories", nil).want(t, "get_categories", "").Data
			sameAsHTTP(t, "get_categories", cats, s.Do("GET", "/v1/categories", nil, buyKey.Auth()))

			est := call(t, buy, "get_shipping_estimate", map[string]any{"listing_id": id, "zip": "10001"}).want(t, "get_shipping_estimate", "").Data
			sameAsHTTP(t, "get_shipping_estimate", est,
				s.Do("POST", "/v1/listings/"+id+"/shipping-estimate", map[string]any{"zip": "10001"}, buyKey.Auth()))
			call(t, buy, "get_shipping_estimate", map[string]any{"listing_id": id, "zip": "1"}).want(t, "get_shipping_estimate", "VALIDATION_ERROR")

			pc := call(t, buy, "get_price_check", map[string]any{"q": word + " bookshelf"}).want(t, "get_price_check", "").Data
			sameAsHTTP(t, "get_price_check", pc, s.Do("GET", "/v1/search/price-check?q="+word+"+bookshelf", nil, buyKey.Auth()))
			if pc["active_count"] != 1.0 {
				t.Fatalf("price check %v", pc)
			}
			call(t, buy, "get_price_check", nil).want(t, "get_price_check", "VALIDATION_ERROR")
			sim := call(t, buy, "get_similar_listings", map[string]any{"listing_id": id, "limit": 3}).want(t, "get_similar_listings", "").Data
			sameAsHTTP(t, "get_similar_listings", sim, s.Do("GET", "/v1/search/similar/"+id+"?limit=3", nil, buyKey.Auth()))

			// Watching, as a buyer.
			w := call(t, buy, "watch_listing", map[string]any{"listing_id": id}).want(t, "watch_listing", "").Data
			if w["watching"] != true || w["watchers_count"] != 1.0 {
				t.Fatalf("watch %v", w)
			}
			watched := call(t, buy, "get_watched_listings", map[string]any{"limit": 10}).want(t, "get_watched_listings", "").Data
			if watched["total"] != 1.0 || items(t, watched, "listings")[0].(map[string]any)["id"] != id {
				t.Fatalf("watched %v", watched)
			}
			w = call(t, buy, "unwatch_listing", map[string]any{"listing_id": id}).want(t, "unwatch_listing", "").Data
			if w["watching"] != false || w["watchers_count"] != 0.0 {
				t.Fatalf("unwatch %v", w)
			}

			// The seller's side.
			up := call(t, sell, "update_listing", map[string]any{"listing_id": id, "price": 11000,
				"description": "Solid " + word + " bookshelf, five shelves."}).want(t, "update_listing", "").Data
			if up["price"] != 11000.0 || up["description"] != "Solid "+word+" bookshelf, five shelves." {
				t.Fatalf("updated %v", up)
			}
			call(t, sell, "update_listing", map[string]any{"listing_id": id, "price": 0}).want(t, "update_listing", "VALIDATION_ERROR")
			detail := call(t, sell, "get_listing_detail", map[string]any{"listing_id": id}).want(t, "get_listing_detail", "").Data
			sameAsHTTP(t, "get_listing_detail", detail, s.Do("GET", "/v1/listings/"+id, nil, sellKey.Auth()))
			mine := call(t, sell, "get_my_listings", map[string]any{"limit": 100}).want(t, "get_my_listings", "").Data
			sameAsHTTP(t, "get_my_listings", mine, s.Do("GET", "/v1/listings/mine?limit=100", nil, sellKey.Auth()))
			// New photos by photo_ids; another seller's photo is refused,
			// under the argument's name.
			slot := items(t, call(t, sell, "get_photo_upload_urls", map[string]any{"count": 1}).Data, "uploads")[0].(map[string]any)
			s.Do("PUT", s.Path(slot["upload_url"].(string)), testkit.JPEG(48, 64),
				testkit.Header{Name: "Content-Type", Value: "image/jpeg"}).Want(t, http.StatusOK, "")
			other := tr.open(t, s, s.NewKey(s.VerifiedOwner("Other"+word), "sell_only").Secret)
			refused := call(t, other, "create_listing", map[string]any{"brief_description": "not my photo",
				"photo_ids": []any{slot["photo_id"]}}).want(t, "create_listing", "VALIDATION_ERROR").Data
			if f := items(t, testkit.Obj(t, refused, "details"), "fields")[0].(map[string]any); f["field"] != "photo_ids" {
				t.Fatalf("another seller's photo: %v", refused)
			}
			up = call(t, sell, "update_listing", map[string]any{"listing_id": id, "photo_ids": []any{slot["photo_id"]}}).
				want(t, "update_listing", "").Data
			if ps := items(t, up, "photos"); len(ps) != 1 || !strings.HasSuffix(ps[0].(string), slot["photo_id"].(string)) {
				t.Fatalf("new photos %v", up)
			}

			gone := call(t, sell, "archive_listing", map[string]any{"listing_id": id}).want(t, "archive_listing", "").Data
			if gone["status"] != "archived" {
				t.Fatalf("archived %v", gone)
			}
		}
	})
}

// Who may call which selling tool: the same answers as the HTTP routes.
func TestListingToolsAuthorization(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("Seller")
		id := s.ActiveListing(seller, "Oak desk lamp, brass", 3000)
		mine := s.NewKey(seller, "buy_sell")
		buyer := s.VerifiedOwner("Buyer")
		other := s.NewKey(buyer, "buy_sell")
		args := map[string]map[string]any{
			"search_listings":       {"q": "lamp"},
			"get_listing":           {"listing_id": id},
			"get_categories":        {},
			"get_shipping_estimate": {"listing_id": id, "zip": "10001"},
			"get_price_check":       {"q": "lamp"},
			"get_similar_listings":  {"listing_id": id},
			"get_photo_upload_urls": {"count": 1},
			"create_listing":        {"brief_description": "x", "photos": []any{base64.StdEncoding.EncodeToString(testkit.JPEG(8, 8))}},
			"update_listing":        {"listing_id": id, "price": 2900},
			"archive_listing":       {"listing_id": id},
			"get_my_listings":       {},
			"get_listing_detail":    {"listing_id": id},
			"watch_listing":         {"listing_id": id},
			"unwatch_listing":       {"listing_id": id},
			"get_watched_listings":  {},
		}
		sellTools := []string{"get_photo_upload_urls", "create_listing", "update_listing", "archive_listing", "get_my_listings"}
		buyTools := []string{"watch_listing", "unwatch_listing", "get_watched_listings"}

		// Wrong scope, over both transports.
		for _, tr := range transports {
			buyOnly := tr.open(t, s, s.NewKey(seller, "buy_only").Secret)
			for _, name := range sellTools {
				call(t, buyOnly, name, args[name]).want(t, name, "INSUFFICIENT_SCOPE")
			}
			sellOnly := tr.open(t, s, s.NewKey(buyer, "sell_only").Secret)
			for _, name := range buyTools {
				call(t, sellOnly, name, args[name]).want(t, name, "INSUFFICIENT_SCOPE")
			}
		}

		// Another user's listing: the codes the routes answer.
		for _, tr := range transports {
			cs := tr.open(t, s, other.Secret)
			for tool, r := range map[string]*testkit.Response{
				"update_listing":     s.Do("PATCH", "/v1/listings/"+id, map[string]any{"price": 2900}, other.Auth()),
				"archive_listing":    s.Do("DELETE", "/v1/listings/"+id, nil, other.Auth()),
				"get_listing_detail": s.Do("GET", "/api/v1/agent/listings/"+id+"/detail", nil, other.Auth()),
			} {
				var env struct {
					Error struct{ Code string } `json:"error"`
				}
				json.Unmarshal(r.Body, &env)
				if env.Error.Code == "" {
					t.Fatalf("%s: the route let another user in: %d %s", tool, r.Status, r.Body)
				}
				call(t, cs, tool, args[tool]).want(t, tool, env.Error.Code)
			}
			// Watching one's own listing is refused as the route refuses it.
			own := tr.open(t, s, mine.Secret)
			r := s.Do("POST", "/api/v1/agent/listings/"+id+"/watch", nil, mine.Auth())
			if r.Status == http.StatusOK {
				call(t, own, "watch_listing", args["watch_listing"]).want(t, "watch_listing", "")
				call(t, own, "unwatch_listing", args["unwatch_listing"]).want(t, "unwatch_listing", "")
			} else {
				var env struct {
					Error struct{ Code string } `json:"error"`
				}
				json.Unmarshal(r.Body, &env)
				call(t, own, "watch_listing", args["watch_listing"]).want(t, "watch_listing", env.Error.Code)
			}
		}

		// A bad key, in memory (over HTTP it is a 401 before MCP).
		bad := inMemory(t, s, "mk_test_bad")
		for name, a := range args {
			call(t, bad, name, a).want(t, name, "INVALID_AGENT_KEY")
		}

		// Frozen, then revoked.
		k := s.NewKey(seller, "buy_sell")
		mem := inMemory(t, s, k.Secret)
		call(t, mem, "get_categories", nil).want(t, "get_categories", "")
		s.Do("POST", "/api/v1/admin/users/"+seller.ID+"/agent-keys/"+k.ID+"/freeze", map[string]any{}, s.Admin().Auth()).
			Want(t, http.StatusOK, "")
		for name, a := range args {
			call(t, mem, name, a).want(t, name, "AGENT_FROZEN")
		}
		k2 := s.NewKey(seller, "buy_sell")
		mem = inMemory(t, s, k2.Secret)
		s.Do("DELETE", "/v1/auth/keys/"+k2.ID, nil, seller.Auth()).Want(t, http.StatusOK, "")
		for name, a := range args {
			call(t, mem, name, a).want(t, name, "INVALID_AGENT_KEY")
		}
	})
}

// The categories resource and the "sell this item" prompt, through the
// SDK client on both transports.
func TestCategoriesResourceAndSellPrompt(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		key := s.NewKey(s.VerifiedOwner("Seller"), "sell_only")
		for _, tr := range transports {
			cs := tr.open(t, s, key.Secret)
			res, err := cs.ListResources(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Resources) != 1 || res.Resources[0].URI != mcpserver.CategoriesURI || res.Resources[0].MIMEType != "application/json" {
				t.Fatalf("%s: resources %+v", tr.name, res.Resources)
			}
			read, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: mcpserver.CategoriesURI})
			if err != nil {
				t.Fatal(err)
			}
			var tree map[string]any
			if len(read.Contents) != 1 || json.Unmarshal([]byte(read.Contents[0].Text), &tree) != nil {
				t.Fatalf("%s: contents %+v", tr.name, read.Contents)
			}
			if want := call(t, cs, "get_categories", nil).want(t, "get_categories", "").Data; !equalJSON(tree, want) || len(items(t, tree, "categories")) == 0 {
				t.Fatalf("%s: the resource is not get_categories' answer", tr.name)
			}

			prompts, err := cs.ListPrompts(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "sell_this_item" || len(prompts.Prompts[0].Arguments) != 2 {
				t.Fatalf("%s: prompts %+v", tr.name, prompts.Prompts)
			}
			p, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "sell_this_item",
				Arguments: map[string]string{"description": "A blue bicycle, 21 gears", "price": "120"}})
			if err != nil {
				t.Fatal(err)
			}
			text := p.Messages[0].Content.(*mcp.TextContent).Text
			last := -1
			for _, step := range []string{"A blue bicycle", "get_photo_upload_urls", "PUT", "create_listing", "get_listing_detail"} {
				i := strings.Index(text, step)
				if i < last {
					t.Fatalf("%s: %q missing or out of order in\n%s", tr.name, step, text)
				}
				last = i
			}
			if !strings.Contains(text, "120") {
				t.Fatalf("%s: the price is not in the prompt", tr.name)
			}
			if _, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "sell_this_item", Arguments: map[string]string{}}); err == nil {
				t.Fatalf("%s: the prompt without a description", tr.name)
			}
		}
	})
}

// Inline photos are bounded: each like an upload, and all of them
// together; over HTTP the request itself is bounded too.
func TestCreateListingInlinePhotoBounds(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		key := s.NewKey(s.VerifiedOwner("Seller"), "sell_only")
		mem := inMemory(t, s, key.Secret)
		b64 := func(n int) string { return base64.StdEncoding.EncodeToString(make([]byte, n)) }
		call(t, mem, "create_listing", map[string]any{"brief_description": "big", "photos": []any{b64(10<<20 + 1)}}).
			want(t, "create_listing", "PAYLOAD_TOO_LARGE")
		// 11.8 MiB in all: over the total, within the SDK's 16 MiB frame.
		two := []any{b64(5<<20 + 900<<10), b64(5<<20 + 900<<10)}
		call(t, mem, "create_listing", map[string]any{"brief_description": "many", "photos": two}).
			want(t, "create_listing", "PAYLOAD_TOO_LARGE")
		// Thirteen photos fail the schema.
		small := base64.StdEncoding.EncodeToString(testkit.JPEG(8, 8))
		var thirteen []any
		for range 13 {
			thirteen = append(thirteen, small)
		}
		call(t, mem, "create_listing", map[string]any{"brief_description": "13", "photos": thirteen}).
			want(t, "create_listing", "VALIDATION_ERROR")

		// Over HTTP a call above the SDK's default 4 MiB body reaches the
		// tool (6 MiB of zeros is not an image) ...
		cs := overHTTP(t, s, key.Secret)
		call(t, cs, "create_listing", map[string]any{"brief_description": "zeros", "photos": []any{b64(6 << 20)}}).
			want(t, "create_listing", "VALIDATION_ERROR")
		// ... and one over the bound is refused before it.
		_, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "create_listing",
			Arguments: map[string]any{"brief_description": "many", "photos": []any{b64(13 << 20)}}})
		if err == nil || !strings.Contains(err.Error(), "Too Large") {
			t.Fatalf("a request over the bound: %v", err)
		}
	})
}
