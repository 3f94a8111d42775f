package market

import "github.com/google/uuid"

// NewID returns a new time-ordered identifier (UUIDv7), so that ids sort in
// creation order and index well.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// ValidID reports whether s is a well-formed identifier. Handlers check path
// ids with it so a malformed id is a plain NOT_FOUND, never a query error.
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}
