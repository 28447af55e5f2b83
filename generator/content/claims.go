package content

// Claim is a published statement about the model and how it is reviewed.
type Claim struct {
	ID   string `yaml:"id"`
	Text string `yaml:"text"`
}

// Measurement is a figure someone measured, with its configuration.
type Measurement struct {
	ID string `yaml:"id"`
}

func validateClaims(f *Front) error { return nil }
