package market

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
