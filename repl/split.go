package repl

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"sort"
	"strings"
)

// chunkKind says how a top-level piece of a cell is evaluated.
type chunkKind int

const (
	chunkStmt    chunkKind = iota // statements, and var/const declarations
	chunkImport                   // import declarations
	chunkType                     // type declarations
	chunkFunc                     // function and method declarations
	chunkPackage                  // a package clause, ignored
)

// chunk is one top-level statement or declaration of a cell: the bytes
// [start, end) of the cell, doc comment included.
type chunk struct {
	kind       chunkKind
	start, end int
	index      int
	keys       []declKey // what it declares
}

// parsedCell is a cell split into chunks and parsed.
type parsedCell struct {
	src    string
	chunks []chunk
	decls  []ast.Decl // imports, types, funcs, in source order
	stmts  []ast.Stmt // statements (var/const included), in source order
	fset   *token.FileSet
	imps   []string
	keys   []declKey // what the cell declares at the top level
	hasVal bool      // the last chunk is an expression statement
}

// declKey names something a cell declares: "type T", "func f",
// "method T.M", "var x".
type declKey struct {
	kind string // "type", "func", "method", "var", "const"
	name string // T, f, T.M, x
}

func (k declKey) String() string { return k.kind + " " + k.name }

// CompileError is an error in a cell's code, at a line and column of the
// cell (both from 1).
type CompileError struct {
	Line, Col int
	Msg       string
}

func (e *CompileError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}

// chunks splits src at the semicolons (written or inserted) that end
// top-level statements and declarations. Comments right before a chunk
// belong to it.
func splitChunks(src string) ([]chunk, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(src))
	var firstErr *CompileError
	var s scanner.Scanner
	s.Init(file, []byte(src), func(pos token.Position, msg string) {
		if firstErr == nil {
			firstErr = &CompileError{Line: pos.Line, Col: pos.Column, Msg: msg}
		}
	}, scanner.ScanComments)
	var out []chunk
	depth := 0
	header := false
	start := -1 // offset of the current chunk, -1 when between chunks
	var toks []token.Token
	lastEnd := 0
	flush := func(end int) {
		if start >= 0 && len(toks) > 0 {
			out = append(out, chunk{kind: classify(toks), start: start, end: end})
		}
		start, toks = -1, nil
	}
	for {
		pos, tok, lit := s.Scan()
		off := file.Offset(pos)
		if tok == token.EOF {
			flush(lastEnd)
			break
		}
		if tok == token.COMMENT {
			if start < 0 {
				start = off
			}
			continue
		}
		// The semicolons of a for, if or switch header do not end it.
		if depth == 0 && (tok == token.FOR || tok == token.IF || tok == token.SWITCH) {
			header = true
		}
		if depth == 0 && tok == token.LBRACE {
			header = false
		}
		if tok == token.SEMICOLON && depth == 0 && !header {
			end := off
			if lit == "\n" {
				end = lastEnd
			}
			flush(end)
			continue
		}
		if start < 0 {
			start = off
		}
		switch tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			depth++
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
		toks = append(toks, tok)
		lastEnd = off + len(tokenText(tok, lit))
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func tokenText(tok token.Token, lit string) string {
	if lit != "" {
		return lit
	}
	return tok.String()
}

// classify tells a declaration from a statement by its first tokens. A
// func is a declaration when a name follows it, or a receiver then a
// name; otherwise it starts a function literal.
func classify(toks []token.Token) chunkKind {
	switch toks[0] {
	case token.IMPORT:
		return chunkImport
	case token.TYPE:
		return chunkType
	case token.PACKAGE:
		return chunkPackage
	case token.FUNC:
		if len(toks) > 1 && toks[1] == token.IDENT {
			return chunkFunc
		}
		if len(toks) > 1 && toks[1] == token.LPAREN {
			depth := 0
			for i := 1; i < len(toks); i++ {
				switch toks[i] {
				case token.LPAREN:
					depth++
				case token.RPAREN:
					depth--
				}
				if depth == 0 {
					if i+2 < len(toks) && toks[i+1] == token.IDENT && (toks[i+2] == token.LPAREN || toks[i+2] == token.LBRACK) {
						return chunkFunc
					}
					return chunkStmt
				}
			}
		}
	}
	return chunkStmt
}

// blank returns src with every byte outside the kept chunks replaced by a
// space (newlines stay), so positions in it are positions in src.
func blank(src string, chunks []chunk, keep func(chunk) bool) string {
	b := []byte(src)
	kept := make([]bool, len(src))
	for _, c := range chunks {
		if keep(c) {
			for i := c.start; i < c.end; i++ {
				kept[i] = true
			}
		}
	}
	for i := range b {
		if !kept[i] && b[i] != '\n' {
			b[i] = ' '
		}
	}
	// Kept chunks on one line ("x := 1; y := 2") stay apart: the byte
	// before the second, a blanked separator, becomes a semicolon.
	prevEnd := -1
	for _, c := range chunks {
		if !keep(c) {
			continue
		}
		if prevEnd >= 0 && c.start > prevEnd && !strings.Contains(src[prevEnd:c.start], "\n") {
			b[c.start-1] = ';'
		}
		prevEnd = c.end
	}
	return string(b)
}

// Both parses put the cell on the lines after a one-line header, so a
// position's line in them is the cell's line plus one and columns are the
// cell's. The same holds for what is handed to yaegi.
const (
	declHeader = "package main\n"
	stmtHeader = "package main; func _() {\n"
)

// parseCell splits and parses a cell; syntax errors come back as
// *CompileError with the cell's line and column.
func parseCell(src string) (*parsedCell, error) {
	chunks, err := splitChunks(src)
	if err != nil {
		return nil, err
	}
	for i := range chunks {
		chunks[i].index = i
	}
	p := &parsedCell{src: src, chunks: chunks, fset: token.NewFileSet()}
	addKey := func(pos token.Pos, k declKey) {
		p.keys = append(p.keys, k)
		if i := p.chunkAt(pos); i >= 0 {
			p.chunks[i].keys = append(p.chunks[i].keys, k)
		}
	}
	isDecl := func(c chunk) bool { return c.kind == chunkImport || c.kind == chunkType || c.kind == chunkFunc }
	isStmt := func(c chunk) bool { return c.kind == chunkStmt }
	if anyChunk(chunks, isDecl) {
		f, err := parser.ParseFile(p.fset, "cell", declHeader+blank(src, chunks, isDecl), parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, cellError(err, src)
		}
		p.decls = f.Decls
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ImportSpec:
						p.imps = append(p.imps, s.Path.Value)
					case *ast.TypeSpec:
						addKey(s.Pos(), declKey{"type", s.Name.Name})
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil {
					addKey(d.Pos(), declKey{"method", recvTypeName(d.Recv.List[0].Type) + "." + d.Name.Name})
				} else {
					addKey(d.Pos(), declKey{"func", d.Name.Name})
				}
			}
		}
	}
	if anyChunk(chunks, isStmt) {
		body := stmtHeader + blank(src, chunks, isStmt) + "\n}"
		f, err := parser.ParseFile(p.fset, "stmts", body, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, cellError(err, src)
		}
		p.stmts = f.Decls[0].(*ast.FuncDecl).Body.List
		for _, s := range p.stmts {
			if ds, ok := s.(*ast.DeclStmt); ok {
				gd := ds.Decl.(*ast.GenDecl)
				for _, sp := range gd.Specs {
					switch sp := sp.(type) {
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							addKey(n.Pos(), declKey{strings.ToLower(gd.Tok.String()), n.Name})
						}
					case *ast.TypeSpec:
						// unreachable: type chunks are declarations
					}
				}
			}
		}
		if last := chunks[len(chunks)-1]; last.kind == chunkStmt && len(p.stmts) > 0 {
			_, p.hasVal = p.stmts[len(p.stmts)-1].(*ast.ExprStmt)
		}
	}
	return p, nil
}

func anyChunk(chunks []chunk, f func(chunk) bool) bool {
	for _, c := range chunks {
		if f(c) {
			return true
		}
	}
	return false
}

// cellError turns a go/parser error on a header-prefixed text into a
// *CompileError at the cell's position.
func cellError(err error, src string) error {
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		e := list[0]
		return clampError(e.Pos.Line-1, e.Pos.Column, e.Msg, src)
	}
	return err
}

// clampError makes a *CompileError at a cell position; positions past the
// cell (in the closing lines of a wrapper) move to its end.
func clampError(line, col int, msg, src string) *CompileError {
	lines := strings.Count(src, "\n") + 1
	if line < 1 {
		line, col = 1, 1
	}
	if line > lines {
		line = lines
		col = len(src) - strings.LastIndex(src, "\n")
		msg = strings.Replace(msg, "found '}'", "found the end of the cell", 1)
	}
	return &CompileError{Line: line, Col: col, Msg: msg}
}

func recvTypeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvTypeName(e.X)
	case *ast.ParenExpr:
		return recvTypeName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return recvTypeName(e.X)
	case *ast.IndexListExpr:
		return recvTypeName(e.X)
	}
	return ""
}

// offset returns the cell offset of a position in one of the parses.
func (p *parsedCell) offset(pos token.Pos) int {
	position := p.fset.Position(pos)
	if position.Filename == "stmts" {
		return position.Offset - len(stmtHeader)
	}
	return position.Offset - len(declHeader)
}

// chunkAt returns the index of the chunk holding a position, or -1.
func (p *parsedCell) chunkAt(pos token.Pos) int {
	off := p.offset(pos)
	for i, c := range p.chunks {
		if off >= c.start && off < c.end {
			return i
		}
	}
	return -1
}

// inspect walks the syntax of the cell's declarations and statements.
func (p *parsedCell) inspect(visit func(ast.Node) bool) {
	for _, d := range p.decls {
		ast.Inspect(d, visit)
	}
	for _, st := range p.stmts {
		ast.Inspect(st, visit)
	}
}

// edit replaces the bytes [start, end) of a cell's text with text.
type edit struct {
	start, end int
	text       string
}

// edit applies edits that do not overlap to the cell's text and parses
// the result; the cell itself when there are none.
func (p *parsedCell) edit(edits []edit) (*parsedCell, error) {
	if len(edits) == 0 {
		return p, nil
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	src := p.src
	for _, e := range edits {
		src = src[:e.start] + e.text + src[e.end:]
	}
	return parseCell(src)
}
