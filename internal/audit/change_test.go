package audit

import (
	"context"
	"testing"
)

// Notes, the areas' ChangeLog, files the change in the request's entry
// details; the last note wins, and outside a request nothing is noted.
func TestNotes(t *testing.T) {
	ctx, cs := WithChanges(context.Background())
	Notes{}.NoteChange(ctx, map[string]any{"status": "active"}, map[string]any{"status": "held"}, map[string]any{"reason": "first"})
	Notes{}.NoteChange(ctx, map[string]any{"status": "active"}, map[string]any{"status": "removed"}, map[string]any{"reason": "r"})
	d := cs.Details()
	if d["before"].(map[string]any)["status"] != "active" || d["after"].(map[string]any)["status"] != "removed" || d["reason"] != "r" {
		t.Fatalf("details %v", d)
	}
	Notes{}.NoteChange(context.Background(), nil, map[string]any{"x": 1}, nil) // no request: no effect, no panic
	var none *Changes
	if none.Details() != nil {
		t.Fatal("nil Changes has details")
	}
}
