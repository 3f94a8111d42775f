package apidoc

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"marketplace/internal/market"
)

type testAddress struct {
	City string `json:"city"`
	ID   string `json:"id,omitempty"`
}

type testBase struct {
	ID string `json:"id" format:"uuid"`
}

type testOrder struct {
	testBase
	Status  string            `json:"status" ref:"OrderStatus"`
	Note    *string           `json:"note"`
	Carrier *string           `json:"carrier,omitempty" enum:"usps,ups"`
	Kind    *string           `json:"kind" enum:"a,b"`
	Total   int64             `json:"total" minimum:"0" doc:"Cents; 'totalCharged' less fees."`
	Days    int               `json:"days"`
	Weight  float64           `json:"weight" example:"1.5"`
	Tags    []string          `json:"tags" items.maxLength:"20"`
	Ship    *testAddress      `json:"ship"`
	Back    testAddress       `json:"back" ref:"ReturnAddress"`
	Meta    map[string]any    `json:"meta,omitempty"`
	Counts  map[string]int    `json:"counts"`
	Lines   []struct{ N int } `json:"lines"`
	At      time.Time         `json:"at"`
	Secret  string            `json:"-"`
	//lint:ignore U1000 an unexported field, which the reflector must skip
	unwritten string
	Children  []testOrder `json:"children,omitempty"`
	Any       any         `json:"any"`
	Raw       json.RawMessage
}

type testInput struct {
	Name   string                  `json:"name" required:"true" minLength:"1" maxLength:"80"`
	Price  market.Opt[int64]       `json:"price" nullable:"true" format:"cents"`
	Role   string                  `json:"role" enum:",buyer,seller"`
	Where  market.Opt[testAddress] `json:"where"`
	Photos []string                `json:"photos" items.ref:"PhotoURL"`
}

func build(t *testing.T, cs ...Component) map[string]Schema {
	t.Helper()
	out, err := Build(cs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// asJSON compares through JSON, so the test reads as the document does.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if g, w := asJSON(t, got), asJSON(t, w); g != w {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func TestResponseSchema(t *testing.T) {
	s := build(t, Component{Name: "Order", Of: testOrder{}, Doc: "An order."},
		Component{Name: "Address", Of: testAddress{}})["Order"]
	props := s["properties"].(Schema)
	for name, want := range map[string]string{
		"id":       `{"type":"string","format":"uuid"}`,
		"status":   `{"$ref":"#/components/schemas/OrderStatus"}`,
		"note":     `{"type":"string","nullable":true}`,
		"carrier":  `{"type":"string","enum":["usps","ups"]}`,
		"kind":     `{"type":"string","enum":["a","b",null],"nullable":true}`,
		"total":    `{"type":"integer","format":"int64","minimum":0,"description":"Cents; ` + "`totalCharged`" + ` less fees."}`,
		"days":     `{"type":"integer"}`,
		"weight":   `{"type":"number","example":1.5}`,
		"tags":     `{"type":"array","items":{"type":"string","maxLength":20}}`,
		"ship":     `{"allOf":[{"$ref":"#/components/schemas/Address"}],"nullable":true,"type":"object"}`,
		"back":     `{"$ref":"#/components/schemas/ReturnAddress"}`,
		"meta":     `{"type":"object"}`,
		"counts":   `{"type":"object","additionalProperties":{"type":"integer"}}`,
		"lines":    `{"type":"array","items":{"type":"object","properties":{"N":{"type":"integer"}},"required":["N"]}}`,
		"at":       `{"type":"string","format":"date-time"}`,
		"children": `{"type":"array","items":{"$ref":"#/components/schemas/Order"}}`,
		"any":      `{}`,
		"Raw":      `{}`,
	} {
		wantJSON(t, name, props[name], want)
	}
	if len(props) != 18 {
		t.Errorf("%d properties, want 18 (no json:\"-\", no unexported): %v", len(props), asJSON(t, props))
	}
	wantJSON(t, "required", s["required"],
		`["id","status","note","kind","total","days","weight","tags","ship","back","counts","lines","at","any","Raw"]`)
	if s["description"] != "An order." || s["type"] != "object" {
		t.Errorf("description %v, type %v", s["description"], s["type"])
	}
}

func TestRequestSchema(t *testing.T) {
	s := build(t, Component{Name: "In", Of: testInput{}, Request: true},
		Component{Name: "Address", Of: testAddress{}})["In"]
	props := s["properties"].(Schema)
	for name, want := range map[string]string{
		"name":   `{"type":"string","minLength":1,"maxLength":80}`,
		"price":  `{"type":"integer","format":"cents","nullable":true}`,
		"role":   `{"type":"string","enum":["","buyer","seller"]}`,
		"where":  `{"$ref":"#/components/schemas/Address"}`,
		"photos": `{"type":"array","items":{"$ref":"#/components/schemas/PhotoURL"}}`,
	} {
		wantJSON(t, name, props[name], want)
	}
	wantJSON(t, "required", s["required"], `["name"]`)
}

func TestComponentOptions(t *testing.T) {
	got := build(t,
		Component{Name: "Address", Of: testAddress{}},
		Component{Name: "SavedAddress", Of: testAddress{}, Closed: true,
			Fields: map[string]string{"id": `required:"true" doc:"Set once saved."`},
			Extra:  map[string]any{"anyOf": AnyRequired("city", "id")}},
	)
	wantJSON(t, "Address", got["Address"],
		`{"type":"object","properties":{"city":{"type":"string"},"id":{"type":"string"}},"required":["city"]}`)
	wantJSON(t, "SavedAddress", got["SavedAddress"], `{"type":"object","additionalProperties":false,
		"properties":{"city":{"type":"string"},"id":{"type":"string","description":"Set once saved."}},
		"required":["city","id"],"anyOf":[{"required":["city"]},{"required":["id"]}]}`)
}

func TestEnvelopes(t *testing.T) {
	got := build(t,
		Component{Name: "Address", Of: testAddress{}},
		Component{Name: "SavedAddress", Of: testAddress{}},
		Envelope("AddressEnvelope", testAddress{}, "Meta"),
		Envelope("SavedAddressEnvelope", "SavedAddress", "Meta"),
		Envelope("AddressListEnvelope", []testAddress{}, "ListMeta"),
		Envelope("EitherEnvelope", OneOf{testAddress{}, testBase{}}, "Meta"),
	)
	frame := `{"type":"object","required":["success","data","meta"],"properties":{"success":{"type":"boolean","enum":[true]},"data":%s,"meta":{"$ref":"#/components/schemas/%s"}}}`
	for name, want := range map[string]string{
		"AddressEnvelope":      strings.Replace(strings.Replace(frame, "%s", `{"$ref":"#/components/schemas/Address"}`, 1), "%s", "Meta", 1),
		"SavedAddressEnvelope": strings.Replace(strings.Replace(frame, "%s", `{"$ref":"#/components/schemas/SavedAddress"}`, 1), "%s", "Meta", 1),
		"AddressListEnvelope":  strings.Replace(strings.Replace(frame, "%s", `{"type":"array","items":{"$ref":"#/components/schemas/Address"}}`, 1), "%s", "ListMeta", 1),
		"EitherEnvelope": strings.Replace(strings.Replace(frame, "%s",
			`{"oneOf":[{"$ref":"#/components/schemas/Address"},{"type":"object","properties":{"id":{"type":"string","format":"uuid"}},"required":["id"]}]}`, 1), "%s", "Meta", 1),
	} {
		wantJSON(t, name, got[name], want)
	}
}

func TestBuildErrors(t *testing.T) {
	type typo struct {
		N int `json:"n" maxLenght:"3"`
	}
	type badValue struct {
		N int `json:"n" minimum:"few"`
	}
	type nullableList struct {
		Photos []string `json:"photos" ref:"Photos" nullable:"true"`
	}
	for name, tc := range map[string]struct {
		cs   []Component
		want string
	}{
		"twice":          {[]Component{{Name: "A", Of: testAddress{}}, {Name: "A", Of: testBase{}}}, "declared twice"},
		"unknown tag":    {[]Component{{Name: "T", Of: typo{}}}, "unknown tag maxLenght"},
		"bad value":      {[]Component{{Name: "T", Of: badValue{}}}, `tag minimum:"few"`},
		"unknown field":  {[]Component{{Name: "A", Of: testAddress{}, Fields: map[string]string{"zip": `doc:"x"`}}}, `"zip", which the type does not have`},
		"override typo":  {[]Component{{Name: "A", Of: testAddress{}, Fields: map[string]string{"id": `requird:"true"`}}}, "unknown tag requird"},
		"extra conflict": {[]Component{{Name: "A", Of: testAddress{}, Extra: map[string]any{"required": []string{"id"}}}}, `may not replace "required"`},
		"no type":        {[]Component{{Name: "A"}}, "no Go type"},
		"nullable array": {[]Component{{Name: "L", Of: nullableList{}}}, "make the named schema nullable"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Build(tc.cs)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestDocText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                                    "plain",
		"set for 'flat_rate' and 'both' only.":     "set for `flat_rate` and `both` only.",
		"the seller's view adds 'floorPrice'":      "the seller's view adds `floorPrice`",
		"joined by ' > '.":                         "joined by ` > `.",
		"'GET /auth/me' with an agent key":         "`GET /auth/me` with an agent key",
		"description '\"\"', price 0":              "description `\"\"`, price 0",
		"the buyers' money, 'x'":                   "the buyers' money, `x`",
		"('handlingDays' of the seller's prefs)":   "(`handlingDays` of the seller's prefs)",
		"an unclosed 'quote":                       "an unclosed 'quote",
		"'round(3% x itemPrice)' by default":       "`round(3% x itemPrice)` by default",
		"line one 'a'\nline 'two' and the buyer's": "line one `a`\nline `two` and the buyer's",
	} {
		if got := docText(in); got != want {
			t.Errorf("docText(%q) = %q, want %q", in, got, want)
		}
	}
}
