package apidoc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

type toolArgs struct {
	ListingID string   `json:"listing_id" format:"uuid" required:"true" doc:"The listing."`
	MaxPrice  *int64   `json:"max_price" minimum:"1" example:"2500"`
	Note      *string  `json:"note" nullable:"true" maxLength:"10"`
	Tags      []string `json:"tags" maxItems:"2"`
	Inner     struct {
		Zip string `json:"zip" pattern:"^[0-9]{5}$" required:"true"`
	} `json:"inner"`
}

// The schema of a request type is a valid JSON Schema that accepts what
// the type's tags allow and refuses what they do not.
func TestJSONSchema(t *testing.T) {
	s, err := JSONSchema(toolArgs{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(s)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("input.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("input.json")
	if err != nil {
		t.Fatalf("not a JSON Schema: %v\n%s", err, raw)
	}
	for in, ok := range map[string]bool{
		`{"listing_id":"a"}`:                           true,
		`{"listing_id":"a","max_price":5,"note":null}`: true,
		`{"listing_id":"a","inner":{"zip":"12345"}}`:   true,
		`{}`:                               false,
		`{"listing_id":"a","max_price":0}`: false,
		`{"listing_id":"a","note":"12345678901"}`: false,
		`{"listing_id":"a","tags":["x","y","z"]}`: false,
		`{"listing_id":"a","inner":{"zip":"1"}}`:  false,
		`{"listing_id":"a","extra":1}`:            false,
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(in))
		if err := sch.Validate(v); (err == nil) != ok {
			t.Errorf("%s: valid %v, want %v (%v)", in, err == nil, ok, err)
		}
	}
}
