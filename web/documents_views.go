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
	// Dialogue summary, for dialogue documents.
	Sessions int
	Turns    int
	Speakers []string
}
