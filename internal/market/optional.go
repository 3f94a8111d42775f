package market

import (
	"bytes"
	"encoding/json"
)

// Opt is an optional field: it can be absent, null or a value. PATCH and PUT
// bodies need to tell "leave it" from "clear it".
type Opt[T any] struct {
	Set   bool // the field was present
	Null  bool // it was null
	Value T
}

// UnmarshalJSON records presence and nullness.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// Ptr is the value, or nil when absent or null.
func (o Opt[T]) Ptr() *T {
	if !o.Set || o.Null {
		return nil
	}
	v := o.Value
	return &v
}
