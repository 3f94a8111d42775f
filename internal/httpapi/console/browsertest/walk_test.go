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
// folder for the pages' screenshots (docs/screenshots keeps the README's).
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
	src, err := os.ReadFile("../../../../scripts/browsercheck/walk.mjs")
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
		buy := listing("Blue enamel teapot, barely used, holds six cups", 3200)
		buy["word"] = "teapot"
		person := func(name string) map[string]any {
			u := s.Register(name)
			return map[string]any{"name": name, "email": u.Email, "password": u.Password}
		}
		admin := s.Admin()
		screenshots := ""
		if strings.HasSuffix(t.Name(), "/sqlite") {
			screenshots = os.Getenv("MARKETPLACE_TEST_SCREENSHOTS")
		}
		cfg := map[string]any{
			"base":            s.URL,
			"chromium":        chromium,
			"screenshots":     screenshots,
			"walks":           []string{"owner", "buyer", "keyboard", "seller", "admin", "phone"},
			"owner":           map[string]any{"email": "olive-walk@example.com", "password": "correct-horse-battery"},
			"agentListing":    listing("Walnut side table with one drawer", 2500),
			"buyListing":      buy,
			"keyboardListing": listing("Brass desk lamp with a green glass shade", 4100),
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
