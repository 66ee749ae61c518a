"""The router's index and everything it is made of and kept in, below the ranking:

- words to terms: `words` (alias and stop-word lists), `text` (the `Tokenizer`), `tokens`
  (skills to bags of term ids, the shared lexicon);
- `rows` (token rows, one per skill), `postings` (BM25 postings built or patched from rows),
  `index` (the `Index` of one list of skills: idf, eligibility, scores);
- `cache` (which index serves which snapshot: reused, patched, loaded or built);
- storage: `store` (the index on disk under `$CODEBOT_HOME/cache/router`), `npy` (cache files
  read without trusting them);
- `prefetch` and `body_worker`: bodies tokenized in a helper process while the catalog loads.

May import: `skills.files` through `skills.invoke`, and of the router only its leaves
`route.config` (every number) and `route.shape` (negative clauses): never the ranking,
the router, `warmup` or `eval`. Nothing is imported here: import the modules themselves
(numpy and bm25s load inside the functions that need them).
"""
