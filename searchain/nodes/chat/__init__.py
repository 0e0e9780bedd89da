"""The nodes that talk with a person, shared by every graph: take the question, give the reply."""
