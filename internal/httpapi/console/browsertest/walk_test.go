// Package browsertest walks the web console in a real browser: Debian's
// Chromium driven by Playwright (scripts/browsercheck/walk.mjs), with
// axe-core checking each page.
package browsertest

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"marketplace/internal/testkit"
)

// TestBrowserWalks runs the walks of issue 27 on each engine: the owner
// signs up, makes a key with caps and approves their agent's purchase; a
// buyer finds a listing by search and pays on the hosted checkout, and
// another does it by keyboard alone; the seller ships; an admin suspends a
// user; every page met passes axe-core's serious and critical rules.
//
// It needs MARKETPLACE_TEST_BROWSER, a folder with node_modules holding
// playwright-core and axe-core (.ci/run makes one), and Chromium at
// MARKETPLACE_TEST_CHROMIUM (default /usr/bin/chromium). It skips without
// them, except in CI, where it fails. MARKETPLACE_TEST_SCREENSHOTS names a
// folder for the pages' screenshots, absolute or from the repository's
// root (docs/screenshots keeps the README's).
func TestBrowserWalks(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("MARKETPLACE_TEST_BROWSER")
	if dir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("MARKETPLACE_TEST_BROWSER is not set in CI")
		}
		t.Skip("MARKETPLACE_TEST_BROWSER is not set")
	}
	chromium := os.Getenv("MARKETPLACE_TEST_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	// The script runs from dir, where its imports resolve to dir's
	// node_modules: a copy of this checkout's.
	const root = "../../../.."
	src, err := os.ReadFile(filepath.Join(root, "scripts/browsercheck/walk.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "walk.mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		seller := s.VerifiedOwner("walkseller")
		listing := func(brief string, price int64) map[string]any {
			id := s.ActiveListing(seller, brief, price)
			title := s.Do("GET", "/api/v1/listings/"+id, nil).Want(t, http.StatusOK, "").Data()["title"].(string)
			return map[string]any{"id": id, "title": title, "price": price}
		}
		buy := listing("Blue enamel teapot for six, barely used", 3200)
		buy["word"] = "teapot"
		person := func(name string) map[string]any {
			u := s.Register(name)
			return map[string]any{"name": name, "email": u.Email, "password": u.Password}
		}
		noScript := listing("Copper kettle with a wooden handle", 2800)
		noScript["word"] = "kettle"
		photo := filepath.Join(t.TempDir(), "planter.jpg")
		if err := os.WriteFile(photo, testkit.JPEG(640, 480), 0o644); err != nil {
			t.Fatal(err)
		}
		// A delivered order with an open dispute, and a buyer's question on
		// a listing: the admin's dispute page and the seller's thread.
		disputer := s.NewShopper("walkdisputer", "pm_card_visa")
		disputed := listing("Oak bookcase with three shelves", 6000)
		order := s.Do("POST", "/api/v1/agent/purchase", map[string]any{"listingId": disputed["id"], "maxPrice": 6000,
			"shippingAddress": testkit.Address()}, disputer.Key.Auth()).Want(t, http.StatusCreated, "").Data()["id"].(string)
		s.Do("POST", "/api/v1/orders/"+order+"/ship", map[string]any{"carrier": "ups", "trackingNumber": "1Z999AA10123456784"},
			seller.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/orders/"+order+"/delivered", nil, disputer.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/disputes", map[string]any{"orderId": order, "reason": "damaged",
			"description": "One shelf arrived split"}, disputer.Auth()).Want(t, http.StatusCreated, "")
		s.Do("POST", "/api/v1/messages", map[string]any{"listingId": buy["id"], "content": "Does the lid fit tightly?"},
			disputer.Auth()).Want(t, http.StatusCreated, "")
		admin := s.Admin()
		// The pages are the same on both engines: axe and the screenshots
		// run on SQLite's walk, the walks themselves on both.
		screenshots, audit := "", strings.HasSuffix(t.Name(), "/sqlite")
		if audit {
			screenshots = os.Getenv("MARKETPLACE_TEST_SCREENSHOTS")
		}
		if screenshots != "" && !filepath.IsAbs(screenshots) { // from the repository's root
			screenshots, _ = filepath.Abs(filepath.Join(root, screenshots))
		}
		cfg := map[string]any{
			"base":            s.URL,
			"chromium":        chromium,
			"screenshots":     screenshots,
			"audit":           audit,
			"walks":           []string{"owner", "buyer", "keyboard", "noscript", "seller", "admin", "phone"},
			"owner":           map[string]any{"email": "olive-walk@example.com", "password": "correct-horse-battery"},
			"agentListing":    listing("Walnut side table with one drawer", 2500),
			"buyListing":      buy,
			"keyboardListing": listing("Brass desk lamp with a green glass shade", 4100),
			"noScriptListing": noScript,
			"noScriptBuyer":   person("walknoscript"),
			"photos":          []string{photo},
			"buyer":           person("walkbuyer"),
			"keyboardBuyer":   person("walkkeys"),
			"seller":          map[string]any{"email": seller.Email, "password": seller.Password},
			"admin":           map[string]any{"email": admin.Email, "password": admin.Password},
			"suspect":         person("walksuspect"),
			"address":         testkit.Address(),
		}
		raw, _ := json.Marshal(cfg)
		cmd := exec.Command("node", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "BROWSERCHECK_CONFIG="+string(raw))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("walk.mjs: %v\n%s", err, out)
		}
		t.Logf("%s", strings.TrimSpace(string(out)))
	})
}
