package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// twinNode is a view that refers to itself, with a Variant B only field.
type twinNode struct {
	ID       string     `json:"id"`
	ParentID *string    `json:"parentId" doc:"Null under 'rootNode'."`
	BOnly    string     `json:"-" snake:"b_only,omitempty"`
	Children []twinNode `json:"children"`
}

type twinNodeSnake struct {
	ID       string          `json:"id"`
	ParentID *string         `json:"parent_id" doc:"Null under 'root_node'."`
	BOnly    string          `json:"b_only,omitempty" snake:"b_only,omitempty"`
	Children []twinNodeSnake `json:"children"`
}

// A twin that is not the one Spell would make: a name spelled otherwise.
type twinNodeWrong struct {
	ID       string          `json:"id"`
	ParentID *string         `json:"parentID" doc:"Null under 'root_node'."`
	BOnly    string          `json:"b_only,omitempty" snake:"b_only,omitempty"`
	Children []twinNodeWrong `json:"children"`
}

type twinLeaf struct {
	Name string `json:"name"`
}

type twinLeafSnake struct {
	Label string `json:"name"`
}

// TestDeclareTwin: a view that refers to itself (which reflect.StructOf
// cannot twin) is spelled through a twin declared by hand, a list of it
// and a struct holding it too; a declared twin that is not the one Spell
// would make is refused, and so is a view with no declared twin.
func TestDeclareTwin(t *testing.T) {
	if got, ok := DeclareTwin(twinNode{}, twinNodeSnake{}).(twinNodeSnake); !ok || got.ID != "" {
		t.Fatalf("DeclareTwin answered %T", got)
	}
	DeclareTwin(twinNode{}, twinNodeSnake{}) // twice, the same: fine
	if _, ok := SnakeOf(twinNode{}).(twinNodeSnake); !ok {
		t.Fatalf("SnakeOf is %T", SnakeOf(twinNode{}))
	}
	root := "r"
	tree := []twinNode{{ID: "r", BOnly: "b", Children: []twinNode{{ID: "c", ParentID: &root, Children: []twinNode{}}}}}
	holder := struct {
		Nodes []twinNode `json:"allNodes"`
	}{tree}
	for v, want := range map[any]string{
		&tree[0]: `{"id":"r","parent_id":null,"b_only":"b","children":[{"id":"c","parent_id":"r","children":[]}]}`,
		&holder:  `{"all_nodes":[{"id":"r","parent_id":null,"b_only":"b","children":[{"id":"c","parent_id":"r","children":[]}]}]}`,
	} {
		got, err := json.Marshal(Spell(v, Snake))
		if err != nil || string(got) != want {
			t.Errorf("%T: %s %v\nwant %s", v, got, err, want)
		}
	}
	if got, _ := json.Marshal(Spell(&tree[0], Camel)); !strings.Contains(string(got), `"parentId":null`) || strings.Contains(string(got), "b_only") {
		t.Errorf("camelCase: %s", got)
	}

	refused := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	refused("another twin of a declared view", func() { DeclareTwin(twinNode{}, twinNodeWrong{}) })
	type other struct {
		ID       string  `json:"id"`
		ParentID *string `json:"parentId" doc:"Null under 'rootNode'."`
		BOnly    string  `json:"-" snake:"b_only,omitempty"`
		Children []other `json:"children"`
	}
	refused("a wrong tag", func() { DeclareTwin(other{}, twinNodeWrong{}) })
	refused("another field name", func() { DeclareTwin(twinLeaf{}, twinLeafSnake{}) })
	type lonely struct {
		ParentID *string  `json:"parentId"`
		Children []lonely `json:"children"`
	}
	refused("no declared twin", func() { SnakeOf(lonely{}) })
}
