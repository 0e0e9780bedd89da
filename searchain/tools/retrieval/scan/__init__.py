"""A corpus's text scanned in compiled code for a build: records, fields, words, stored lines."""
