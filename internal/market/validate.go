package market

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Check collects invalid fields so a caller learns of every bad field at once.
//
//	var c market.Check
//	c.Require(len(pw) >= 10, "password", "must be at least 10 characters")
//	return c.Err()
type Check struct {
	fields []FieldError
}

// Require records field as invalid with message unless ok.
func (c *Check) Require(ok bool, field, message string) bool {
	if !ok {
		c.Add(field, message)
	}
	return ok
}

// Add records field as invalid, once per field.
func (c *Check) Add(field, message string) {
	for _, f := range c.fields {
		if f.Field == field {
			return
		}
	}
	c.fields = append(c.fields, FieldError{Field: field, Message: message})
}

// Err is a VALIDATION_ERROR naming every invalid field, or nil.
func (c *Check) Err() error {
	if len(c.fields) == 0 {
		return nil
	}
	return Invalid(c.fields...)
}

// Text checks a free-text field and returns it trimmed: not blank when
// required, at most max characters as sent (as the published schemas count
// them), and no control characters other than line breaks and tabs
// (PostgreSQL stores no NUL).
func (c *Check) Text(field, s string, max int, required bool) string {
	switch {
	case required && strings.TrimSpace(s) == "":
		c.Add(field, "is required")
	case utf8.RuneCountInString(s) > max:
		c.Add(field, "must be at most "+strconv.Itoa(max)+" characters")
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }):
		c.Add(field, "must not contain control characters")
	}
	return strings.TrimSpace(s)
}
