"""Text utilities shared by every room: clauses and sentences, index terms, lexical overlap."""
