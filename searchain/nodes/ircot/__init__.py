"""IRCoT's nodes: reason (one CoT sentence), retrieve (K paragraphs for it), answer."""
