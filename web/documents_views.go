package web

// DocumentsPage lists documents and offers upload and paste forms.
type DocumentsPage struct {
	Docs     []DocumentRow
	MaxBytes int
}

// DocumentPage shows one document.
type DocumentPage struct {
	Doc       DocumentRow
	SHA256    string
	Content   string
	Truncated bool
	// Transcript says Content is a dialogue's transcript, not the
	// document as stored.
	Transcript bool
	// Dialogue summary, for dialogue documents.
	Sessions int
	Turns    int
	Speakers []string
}
