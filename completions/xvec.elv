
use builtin;
use str;

set edit:completion:arg-completer[xvec] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'xvec'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'xvec'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand create 'Create a collection from a JSON schema file or --field/--vector flags.'
            cand import 'Import documents from JSON Lines, CSV, Parquet, or raw vectors (.fvecs/.npy).'
            cand insert 'Insert new documents; a key that exists already fails.'
            cand upsert 'Insert documents, or merge the given fields into existing ones.'
            cand update 'Replace the given fields of existing documents; a missing key fails.'
            cand delete 'Delete documents by key, or every document matching --where.'
            cand fetch 'Print documents by primary key.'
            cand query 'Search by vector, key, file row, text (BM25) or sparse vector, or fuse several.'
            cand scan 'Browse rows a page at a time, by key or by a field (alias: select).'
            cand explain 'Show how a query, count or scan runs: index or scan per predicate and segment.'
            cand count 'Count live documents, or per value of a field (facets), or field statistics.'
            cand analyze 'Show the terms a full-text field''s analyzer makes of a text.'
            cand vocabulary 'Write the BM25 vocabulary of a string field''s documents to a file.'
            cand flush 'Seal the write-ahead log into an immutable, memory-mapped segment.'
            cand optimize 'Compact segments and build the vector indexes (HNSW, quantized codes).'
            cand alter 'Change the schema: add, drop, rename, widen fields; add, drop, set indexes.'
            cand describe 'Show the schema, index parameters, counts and size.'
            cand stats 'Show segments, deletions, WAL size and the memory the engine holds.'
            cand export 'Write documents as JSON Lines, CSV, Parquet, or vectors as .npy/.fvecs.'
            cand schema 'Print the schema as JSON, as `create --schema` and `repair --schema` read it.'
            cand dump 'Print a script that recreates the collection, or write it to a directory.'
            cand shell 'Interactive shell over a collection, or run a script.'
            cand completions 'Print a completion script for a shell.'
            cand man 'Write the man pages, one per command, into a directory.'
            cand quickstart 'Build a sample collection from the bundled WordNet data and query it.'
            cand bench 'Benchmark load time, search speed, recall and memory on a dataset.'
            cand tui 'Live dashboard: run a search workload, watch QPS, latency, recall and memory.'
            cand verify 'Check every file, checksum, graph and code of a collection.'
            cand repair 'Repair a damaged collection: plan, confirm, then rebuild and republish.'
            cand backup 'Copy a live collection to DEST, consistently, while writers keep writing.'
            cand restore 'Bring a backup back into a new or empty directory, after it verifies.'
            cand versions 'List the versions of a collection kept for time travel, oldest first.'
            cand tag 'Name a version (the live one by default), or list or delete tags.'
            cand checkout 'Publish an older version again as the newest (undo to that version).'
            cand vacuum 'Remove the versions nothing keeps any more, and the files only they use.'
            cand inspect 'Show segments, fields, graphs, memory, the WAL, or where a key lives.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;create'= {
            cand --schema 'JSON schema: a file, `-` for standard input (in a shell script: the lines after the statement up to `\.`), or the JSON itself when it starts with `{`'
            cand --field 'A scalar field, NAME:TYPE or NAME:TYPE:nullable (repeatable)'
            cand --vector 'A vector field, NAME:DIM:METRIC[:fp32|fp16|int8][:nullable] (repeatable)'
            cand --index 'Index of every --vector field: flat (default), hnsw, or its JSON parameters, e.g. ''{"type": "hnsw", "m": 16, "quantize": "int8", "refine": 4}'''
            cand --name 'Collection name with --field/--vector (default: the directory''s name)'
            cand --auto-flush-rows 'Keep the collection indexed as it grows: flush the memtable at ROWS rows, index each new segment and merge segments in tiers in the background (0: only when asked)'
            cand --auto-flush-bytes 'Also flush when the memtable takes SIZE of memory, e.g. 64MiB (turns background maintenance on like --auto-flush-rows)'
            cand --idle-optimize-ms 'Once writes pause for MS milliseconds, background maintenance flushes the memtable and merges small segments into one, as optimize would (0: never)'
            cand --merge-factor 'Segments of one size tier that background maintenance merges into one'
            cand --max-docs-per-segment 'Most documents one segment holds after optimize or a merge'
            cand --keep-versions 'Keep the N newest superseded versions for time travel (`--as-of`) and checkout (0: none, each publish removes what it superseded)'
            cand --keep-for 'Also keep every version superseded less than SECS seconds ago'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;import'= {
            cand --format 'Input format (default: from the file''s extension)'
            cand --key-field 'Member or column that holds the primary key (`_key`, as dump and export write it, when the input has it and no `id`)'
            cand --vectors 'Take a vector field from a .fvecs/.npy file: row i of the input gets row i'
            cand --field 'Vector field that raw vectors fill (default: the only one)'
            cand --ids 'Keys of raw vectors, one per line (default: FILE.ids if it exists, else row numbers from 0)'
            cand --sparse-bm25 'Fill the sparse field TARGET with the BM25 weights of each row''s SOURCE text over the terms of the vocabulary file VOCAB (made by `xvec vocabulary`); repeatable'
            cand --batch-size 'Documents per write batch (one WAL sync each)'
            cand --max-errors 'Stop once more than N rows were bad (default: never; with --atomic, 0); the batches before stay, unless --atomic'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --upsert 'Insert or merge instead of failing on existing keys'
            cand --skip-existing 'Skip rows whose key exists already (resuming an import that stopped part-way)'
            cand --atomic 'All or nothing: stage every row, publish them as one version at the end; an error, a bad row (past --max-errors) or Ctrl-C commits none'
            cand --flush 'Flush into a segment when done (the default for more rows than the collection''s auto_flush_rows, 10000 when that is 0)'
            cand --no-flush 'Keep the rows in the WAL even after a large import (each open replays them until a flush)'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;insert'= {
            cand --key-field 'Member that holds the primary key'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;upsert'= {
            cand --key-field 'Member that holds the primary key'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;update'= {
            cand --key-field 'Member that holds the primary key'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;delete'= {
            cand --where 'Delete every document matching this filter'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;fetch'= {
            cand --fields 'Fields to print, comma-separated (default: all, vectors too)'
            cand --as-of 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;query'= {
            cand --pk 'Use the stored vector of this document'
            cand --vector-file 'Take the query vector from a .fvecs/.npy file (with --row)'
            cand --row 'Row of --vector-file, from 0'
            cand --field 'Vector field to search (needed when the schema has several)'
            cand --filter 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"'
            cand --as-of 'Search an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand -k 'Number of results, 1 to 100000'
            cand --k 'Number of results, 1 to 100000'
            cand --ef 'Search breadth of graph indexes (hnsw ef, vamana query list), k to 100000; refused on other indexes'
            cand --nprobe 'Lists an ivf index probes, 1 to 65536 (of its nlist; more is slower and finds more); refused on other indexes'
            cand --target-recall 'Instead of --nprobe: probe in each segment the lists its build measured as holding this share of its rows'' 10 nearest neighbours (above 0, at most 1); ivf only'
            cand --refine 'Re-rank REFINE × k candidates of a quantized index with the original vectors; REFINE × k is at most 1000000; refused on an index without quantization'
            cand --beam-width 'Nodes a disk index expands, and so blocks it reads at once, per hop, 1 to 64 (default: the index''s beam_width; wider: more reads in fewer round trips); refused on other indexes'
            cand --group-by 'Group results by this scalar field: -k groups, best first, of --per-group hits'
            cand --per-group 'Hits per group with --group-by; k × N is at most 1000000'
            cand --fields 'Fields to print, comma-separated (default: all scalar fields)'
            cand --text 'Also rank by BM25 over a full-text field (a string field with an fts index), fused with the vector query when one is given; e.g. --text ''dog leash'''
            cand --text-field 'Full-text field for --text, NAME or NAME^BOOST (its scores times BOOST); repeat it to search several fields at once, each row scoring the sum (default: the schema''s only full-text field)'
            cand --sparse 'Also rank by inner product with this sparse vector over a sparse field, exact: ''{"indices": [3, 17], "values": [0.5, 1.2]}'' or ''{"3": 0.5, "17": 1.2}'''
            cand --sparse-text 'Also rank by the BM25 weights of a sparse field (filled by import --sparse-bm25): the text''s terms in the --vocabulary file, each at weight 1'
            cand --vocabulary 'The vocabulary file the sparse field''s weights were made with, for --sparse-text'
            cand --sparse-field 'Sparse field for --sparse or --sparse-text (needed when the schema has several)'
            cand --sparse-budget 'Approximate --sparse or --sparse-text: each segment''s index search stops after scoring N postings (default: exact)'
            cand --keys 'Also rank these documents first, in this order (a key-lookup branch), comma-separated'
            cand --fusion 'How the branches (vector, --text, --sparse, --keys) are fused: rrf (reciprocal rank fusion) or weighted (a weighted sum of min-max scaled scores, see --weights)'
            cand --rrf-k 'RRF''s constant k (above 0)'
            cand --weights '--fusion weighted: one weight per branch, in the order vector, text, sparse, keys'
            cand --branch-k 'Hits each branch ranks before fusion, 1 to 100000 (default: -k)'
            cand --json 'The whole query as one JSON object, or @FILE to read it from a file: ''{"k": 5, "filter": "...", "fields": [...], "fusion": "rrf", "branches": [{"vector": [...]}, {"key": "K"}, {"text": "...", "fields": ["gloss^2"]}, {"sparse": {...}}, {"keys": [...]}]}'' (a branch may also give its field, k, ef, nprobe, refine, beam_width or budget; fusion may be {"rrf": K} or {"weighted": [w, ...]})'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --exclude-self 'With --pk: leave that document out of the results (it is its own nearest neighbour, first at every k)'
            cand --with-vectors 'Also print vector fields'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;scan'= {
            cand --filter 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"'
            cand --where 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"'
            cand --fields 'Fields to print, comma-separated (default: all, vectors too)'
            cand --limit 'Rows to print, at least 1'
            cand --offset 'Skip this many rows first (after --after''s cursor, if any)'
            cand --order-by 'Order by this scalar field, then by key (default: by key); `FIELD desc` or --desc for descending order'
            cand --after 'Start after this cursor: the one a page''s footer gives (in key order, a key)'
            cand --as-of 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --all 'Print every row the filter keeps (no --limit)'
            cand --desc 'Descending order'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;explain'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand query 'Explain a query (the flags of `query`).'
            cand count 'Explain a count, --group-by or --stats (the flags of `count`).'
            cand scan 'Explain a scan (the flags of `scan`): the filter, then the rows each source read.'
            cand analyze 'Explain a query with the time each step took.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;explain;query'= {
            cand --pk 'Use the stored vector of this document'
            cand --vector-file 'Take the query vector from a .fvecs/.npy file (with --row)'
            cand --row 'Row of --vector-file, from 0'
            cand --field 'Vector field to search (needed when the schema has several)'
            cand --filter 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"'
            cand --as-of 'Search an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand -k 'Number of results, 1 to 100000'
            cand --k 'Number of results, 1 to 100000'
            cand --ef 'Search breadth of graph indexes (hnsw ef, vamana query list), k to 100000; refused on other indexes'
            cand --nprobe 'Lists an ivf index probes, 1 to 65536 (of its nlist; more is slower and finds more); refused on other indexes'
            cand --target-recall 'Instead of --nprobe: probe in each segment the lists its build measured as holding this share of its rows'' 10 nearest neighbours (above 0, at most 1); ivf only'
            cand --refine 'Re-rank REFINE × k candidates of a quantized index with the original vectors; REFINE × k is at most 1000000; refused on an index without quantization'
            cand --beam-width 'Nodes a disk index expands, and so blocks it reads at once, per hop, 1 to 64 (default: the index''s beam_width; wider: more reads in fewer round trips); refused on other indexes'
            cand --group-by 'Group results by this scalar field: -k groups, best first, of --per-group hits'
            cand --per-group 'Hits per group with --group-by; k × N is at most 1000000'
            cand --fields 'Fields to print, comma-separated (default: all scalar fields)'
            cand --text 'Also rank by BM25 over a full-text field (a string field with an fts index), fused with the vector query when one is given; e.g. --text ''dog leash'''
            cand --text-field 'Full-text field for --text, NAME or NAME^BOOST (its scores times BOOST); repeat it to search several fields at once, each row scoring the sum (default: the schema''s only full-text field)'
            cand --sparse 'Also rank by inner product with this sparse vector over a sparse field, exact: ''{"indices": [3, 17], "values": [0.5, 1.2]}'' or ''{"3": 0.5, "17": 1.2}'''
            cand --sparse-text 'Also rank by the BM25 weights of a sparse field (filled by import --sparse-bm25): the text''s terms in the --vocabulary file, each at weight 1'
            cand --vocabulary 'The vocabulary file the sparse field''s weights were made with, for --sparse-text'
            cand --sparse-field 'Sparse field for --sparse or --sparse-text (needed when the schema has several)'
            cand --sparse-budget 'Approximate --sparse or --sparse-text: each segment''s index search stops after scoring N postings (default: exact)'
            cand --keys 'Also rank these documents first, in this order (a key-lookup branch), comma-separated'
            cand --fusion 'How the branches (vector, --text, --sparse, --keys) are fused: rrf (reciprocal rank fusion) or weighted (a weighted sum of min-max scaled scores, see --weights)'
            cand --rrf-k 'RRF''s constant k (above 0)'
            cand --weights '--fusion weighted: one weight per branch, in the order vector, text, sparse, keys'
            cand --branch-k 'Hits each branch ranks before fusion, 1 to 100000 (default: -k)'
            cand --json 'The whole query as one JSON object, or @FILE to read it from a file: ''{"k": 5, "filter": "...", "fields": [...], "fusion": "rrf", "branches": [{"vector": [...]}, {"key": "K"}, {"text": "...", "fields": ["gloss^2"]}, {"sparse": {...}}, {"keys": [...]}]}'' (a branch may also give its field, k, ef, nprobe, refine, beam_width or budget; fusion may be {"rrf": K} or {"weighted": [w, ...]})'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --exclude-self 'With --pk: leave that document out of the results (it is its own nearest neighbour, first at every k)'
            cand --with-vectors 'Also print vector fields'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;explain;count'= {
            cand --filter 'Count only documents matching this filter'
            cand --where 'Count only documents matching this filter'
            cand --group-by 'Count the rows per value of this scalar or array field'
            cand --top 'With --group-by: the N most frequent values'
            cand --stats 'Statistics of these scalar fields, comma-separated: count, min, max, sum, avg'
            cand --as-of 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;explain;scan'= {
            cand --filter 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"'
            cand --where 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"'
            cand --fields 'Fields to print, comma-separated (default: all, vectors too)'
            cand --limit 'Rows to print, at least 1'
            cand --offset 'Skip this many rows first (after --after''s cursor, if any)'
            cand --order-by 'Order by this scalar field, then by key (default: by key); `FIELD desc` or --desc for descending order'
            cand --after 'Start after this cursor: the one a page''s footer gives (in key order, a key)'
            cand --as-of 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --all 'Print every row the filter keeps (no --limit)'
            cand --desc 'Descending order'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;explain;analyze'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand query 'Explain a query with timings (the flags of `query`).'
            cand count 'Explain a count with timings (the flags of `count`).'
            cand scan 'Explain a scan with timings (the flags of `scan`).'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;explain;analyze;query'= {
            cand --pk 'Use the stored vector of this document'
            cand --vector-file 'Take the query vector from a .fvecs/.npy file (with --row)'
            cand --row 'Row of --vector-file, from 0'
            cand --field 'Vector field to search (needed when the schema has several)'
            cand --filter 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"'
            cand --as-of 'Search an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand -k 'Number of results, 1 to 100000'
            cand --k 'Number of results, 1 to 100000'
            cand --ef 'Search breadth of graph indexes (hnsw ef, vamana query list), k to 100000; refused on other indexes'
            cand --nprobe 'Lists an ivf index probes, 1 to 65536 (of its nlist; more is slower and finds more); refused on other indexes'
            cand --target-recall 'Instead of --nprobe: probe in each segment the lists its build measured as holding this share of its rows'' 10 nearest neighbours (above 0, at most 1); ivf only'
            cand --refine 'Re-rank REFINE × k candidates of a quantized index with the original vectors; REFINE × k is at most 1000000; refused on an index without quantization'
            cand --beam-width 'Nodes a disk index expands, and so blocks it reads at once, per hop, 1 to 64 (default: the index''s beam_width; wider: more reads in fewer round trips); refused on other indexes'
            cand --group-by 'Group results by this scalar field: -k groups, best first, of --per-group hits'
            cand --per-group 'Hits per group with --group-by; k × N is at most 1000000'
            cand --fields 'Fields to print, comma-separated (default: all scalar fields)'
            cand --text 'Also rank by BM25 over a full-text field (a string field with an fts index), fused with the vector query when one is given; e.g. --text ''dog leash'''
            cand --text-field 'Full-text field for --text, NAME or NAME^BOOST (its scores times BOOST); repeat it to search several fields at once, each row scoring the sum (default: the schema''s only full-text field)'
            cand --sparse 'Also rank by inner product with this sparse vector over a sparse field, exact: ''{"indices": [3, 17], "values": [0.5, 1.2]}'' or ''{"3": 0.5, "17": 1.2}'''
            cand --sparse-text 'Also rank by the BM25 weights of a sparse field (filled by import --sparse-bm25): the text''s terms in the --vocabulary file, each at weight 1'
            cand --vocabulary 'The vocabulary file the sparse field''s weights were made with, for --sparse-text'
            cand --sparse-field 'Sparse field for --sparse or --sparse-text (needed when the schema has several)'
            cand --sparse-budget 'Approximate --sparse or --sparse-text: each segment''s index search stops after scoring N postings (default: exact)'
            cand --keys 'Also rank these documents first, in this order (a key-lookup branch), comma-separated'
            cand --fusion 'How the branches (vector, --text, --sparse, --keys) are fused: rrf (reciprocal rank fusion) or weighted (a weighted sum of min-max scaled scores, see --weights)'
            cand --rrf-k 'RRF''s constant k (above 0)'
            cand --weights '--fusion weighted: one weight per branch, in the order vector, text, sparse, keys'
            cand --branch-k 'Hits each branch ranks before fusion, 1 to 100000 (default: -k)'
            cand --json 'The whole query as one JSON object, or @FILE to read it from a file: ''{"k": 5, "filter": "...", "fields": [...], "fusion": "rrf", "branches": [{"vector": [...]}, {"key": "K"}, {"text": "...", "fields": ["gloss^2"]}, {"sparse": {...}}, {"keys": [...]}]}'' (a branch may also give its field, k, ef, nprobe, refine, beam_width or budget; fusion may be {"rrf": K} or {"weighted": [w, ...]})'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --exclude-self 'With --pk: leave that document out of the results (it is its own nearest neighbour, first at every k)'
            cand --with-vectors 'Also print vector fields'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;explain;analyze;count'= {
            cand --filter 'Count only documents matching this filter'
            cand --where 'Count only documents matching this filter'
            cand --group-by 'Count the rows per value of this scalar or array field'
            cand --top 'With --group-by: the N most frequent values'
            cand --stats 'Statistics of these scalar fields, comma-separated: count, min, max, sum, avg'
            cand --as-of 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;explain;analyze;scan'= {
            cand --filter 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"'
            cand --where 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"'
            cand --fields 'Fields to print, comma-separated (default: all, vectors too)'
            cand --limit 'Rows to print, at least 1'
            cand --offset 'Skip this many rows first (after --after''s cursor, if any)'
            cand --order-by 'Order by this scalar field, then by key (default: by key); `FIELD desc` or --desc for descending order'
            cand --after 'Start after this cursor: the one a page''s footer gives (in key order, a key)'
            cand --as-of 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --all 'Print every row the filter keeps (no --limit)'
            cand --desc 'Descending order'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;explain;analyze;help'= {
            cand query 'Explain a query with timings (the flags of `query`).'
            cand count 'Explain a count with timings (the flags of `count`).'
            cand scan 'Explain a scan with timings (the flags of `scan`).'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;explain;analyze;help;query'= {
        }
        &'xvec;explain;analyze;help;count'= {
        }
        &'xvec;explain;analyze;help;scan'= {
        }
        &'xvec;explain;analyze;help;help'= {
        }
        &'xvec;explain;help'= {
            cand query 'Explain a query (the flags of `query`).'
            cand count 'Explain a count, --group-by or --stats (the flags of `count`).'
            cand scan 'Explain a scan (the flags of `scan`): the filter, then the rows each source read.'
            cand analyze 'Explain a query with the time each step took.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;explain;help;query'= {
        }
        &'xvec;explain;help;count'= {
        }
        &'xvec;explain;help;scan'= {
        }
        &'xvec;explain;help;analyze'= {
            cand query 'Explain a query with timings (the flags of `query`).'
            cand count 'Explain a count with timings (the flags of `count`).'
            cand scan 'Explain a scan with timings (the flags of `scan`).'
        }
        &'xvec;explain;help;analyze;query'= {
        }
        &'xvec;explain;help;analyze;count'= {
        }
        &'xvec;explain;help;analyze;scan'= {
        }
        &'xvec;explain;help;help'= {
        }
        &'xvec;count'= {
            cand --filter 'Count only documents matching this filter'
            cand --where 'Count only documents matching this filter'
            cand --group-by 'Count the rows per value of this scalar or array field'
            cand --top 'With --group-by: the N most frequent values'
            cand --stats 'Statistics of these scalar fields, comma-separated: count, min, max, sum, avg'
            cand --as-of 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;analyze'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;vocabulary'= {
            cand --index 'Analyzer and BM25 parameters, as a full-text index takes them, e.g. ''{"type": "fts", "filters": ["lowercase", "stem_en"], "k1": 1.2}'' (default: the field''s full-text index, else the default analyzer)'
            cand -o 'Output file (default: standard output)'
            cand --output 'Output file (default: standard output)'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;flush'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;optimize'= {
            cand --concurrency 'Threads for index builds, 1 to 1024 (default: all cores; 1 builds deterministically)'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;alter'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand add-field 'Add a field; rows already written read its default, or NULL'
            cand drop-field 'Drop a field and its indexes; optimize reclaims its bytes'
            cand rename-field 'Rename a field; its data and indexes stay as they are'
            cand alter-field 'Widen a field''s type (int32 to int64, float to double, string to array_string, ...)'
            cand add-index 'Add a scalar or full-text index to a field and build it for every segment'
            cand drop-index 'Drop a scalar or full-text index from a field; filters on it scan its column again'
            cand set-index 'Change a vector field''s index (kind, parameters, quantization); waits for the build'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;alter;add-field'= {
            cand --default 'The value rows written before, and documents that leave the field out, get (JSON; a bare word is a string). Required for a field that is not nullable'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;alter;drop-field'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --yes 'Drop the last vector field without asking'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;alter;rename-field'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;alter;alter-field'= {
            cand --type 'The wider type'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;alter;add-index'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;alter;drop-index'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;alter;set-index'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;alter;help'= {
            cand add-field 'Add a field; rows already written read its default, or NULL'
            cand drop-field 'Drop a field and its indexes; optimize reclaims its bytes'
            cand rename-field 'Rename a field; its data and indexes stay as they are'
            cand alter-field 'Widen a field''s type (int32 to int64, float to double, string to array_string, ...)'
            cand add-index 'Add a scalar or full-text index to a field and build it for every segment'
            cand drop-index 'Drop a scalar or full-text index from a field; filters on it scan its column again'
            cand set-index 'Change a vector field''s index (kind, parameters, quantization); waits for the build'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;alter;help;add-field'= {
        }
        &'xvec;alter;help;drop-field'= {
        }
        &'xvec;alter;help;rename-field'= {
        }
        &'xvec;alter;help;alter-field'= {
        }
        &'xvec;alter;help;add-index'= {
        }
        &'xvec;alter;help;drop-index'= {
        }
        &'xvec;alter;help;set-index'= {
        }
        &'xvec;alter;help;help'= {
        }
        &'xvec;describe'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;stats'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;export'= {
            cand --format 'Output format'
            cand -o 'Output file (default, or `-`: standard output; npy, fvecs and parquet need a file)'
            cand --output 'Output file (default, or `-`: standard output; npy, fvecs and parquet need a file)'
            cand --filter 'Only documents matching this filter'
            cand --fields 'Fields to write, comma-separated (default: all)'
            cand --field 'Vector field of npy and fvecs (default: the only one)'
            cand --key-field 'Name of the key column (member in jsonl)'
            cand --as-of 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;schema'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;dump'= {
            cand -o 'Write the script and its files to this directory instead (created if missing; it must not hold a dump yet)'
            cand --output 'Write the script and its files to this directory instead (created if missing; it must not hold a dump yet)'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;shell'= {
            cand -f 'Run the statements of this script (repeatable, runs in argv order with -c)'
            cand --file 'Run the statements of this script (repeatable, runs in argv order with -c)'
            cand -c 'Run this statement (repeatable, runs in argv order with -f)'
            cand --command 'Run this statement (repeatable, runs in argv order with -f)'
            cand --init 'Run FILE before the first prompt or script instead of the default startup file'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --write 'Allow writing statements (each takes the writer lock while it runs)'
            cand --keep-going 'In batch mode, run the remaining statements after one fails (the exit status is still that of the first failure)'
            cand -n 'Do not run a startup file'
            cand --no-init 'Do not run a startup file'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;completions'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;man'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;quickstart'= {
            cand --data 'Directory with the sample data (default: the source tree''s commands/data)'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;bench'= {
            cand --dataset 'Dataset directory: base.fvecs + queries.fvecs (+ gt_<metric>_<k>.ivecs), or VectorDBBench''s train.parquet (or shuffle_train*.parquet) + test.parquet (+ neighbors.parquet)'
            cand --base 'Base vectors: .fvecs, .bvecs, .npy or .parquet'
            cand --queries 'Query vectors: .fvecs, .bvecs, .npy or .parquet'
            cand --gt 'Ground truth: .ivecs, integer .npy or neighbors .parquet (default: computed exactly)'
            cand --path 'Collection directory to create (default: a temporary one, removed afterwards)'
            cand --index 'Index type of the vector field'
            cand --m 'HNSW edges per node (default: the engine''s)'
            cand --ef-construction 'HNSW candidate list size while building (default: the engine''s)'
            cand --degree 'Vamana, qg, disk: most neighbours per node (qg: a multiple of 32)'
            cand --build-list 'Vamana, qg, disk: candidate list size while building, L (default: the engine''s)'
            cand --graph 'qg: the graph its blocks are laid out from (default: vamana)'
            cand --alpha 'Vamana, disk: prune relaxation, e.g. 1.2 (default: the engine''s)'
            cand --nlist 'IVF: lists per segment, 1..=65536 (default: the engine''s)'
            cand --default-nprobe 'IVF: lists a query probes by default (default: the engine''s)'
            cand --soar 'IVF: keep every row in a second list chosen by SOAR (default: off)'
            cand --quantize 'Vector codes inside the index (default: none)'
            cand --bits 'Bits per dimension of RaBitQ codes, sign included, 1..=8 (default: the engine''s)'
            cand --rotate 'Rotate vectors before quantizing (default: on for int8, int4 and rabitq)'
            cand --seed 'Seed of graph construction and rotation'
            cand --metric 'Similarity metric'
            cand -k 'Neighbours per query; recall and nDCG are computed at this k'
            cand --k 'Neighbours per query; recall and nDCG are computed at this k'
            cand --ef 'Search breadth of graph indexes, 1 to 100000 (default: the index''s own)'
            cand --nprobe 'Lists an ivf index probes, 1 to 65536 (default: the index''s nprobe)'
            cand --refine 'Re-rank REFINE × k candidates with the original vectors, REFINE 0 to 1000 (default: the index''s)'
            cand --beam-width 'A disk index''s nodes expanded (blocks read at once) per hop, 1 to 64 (default: the index''s beam_width)'
            cand --limit 'Use only the first N base vectors (ground truth is checked, or computed, for them)'
            cand --batch-size 'Documents per insert call'
            cand --batch 'Documents per insert call'
            cand --optimize-concurrency 'Threads the optimize phase may use, 1 to 1024 (default: all cores)'
            cand --mmap 'Map segment files when reopening for search, or read them into memory'
            cand --warmup 'Untimed queries before the timed phases of each search setting, and again right before the serial pass'
            cand --warmup-from 'What the warm-up queries are: the measured queries, or base rows spread over the dataset (queries a cache that searches fill has not seen: a disk index''s)'
            cand --concurrency 'Thread counts of the concurrent phase, e.g. 1,2,4 (default: 1 and all cores)'
            cand --duration 'How long each concurrent phase runs, e.g. 30s, 0.2s, 500ms, 2m'
            cand --cooldown 'Pause between the concurrent phases and the serial phase'
            cand --sweep 'Run the search phases once per value, e.g. ef=16,32,64,128,256 (ef, refine, nprobe or beam, a disk index''s beam width)'
            cand --filter 'Every query carries this filter, e.g. "pos = ''v''": the base rows'' scalar attributes are loaded from the JSON Lines file beside the base vectors (base.jsonl beside base.fvecs), and ground truth is computed among the rows the filter allows'
            cand --route 'How segments with a graph index are searched: auto (the engine''s cost model picks graph or an exact scan of the allowed rows per segment), or forced to graph or exact, to measure one route against the other'
            cand --gt-threads 'Threads for computing ground truth when the dataset has none, 1 to 1024 (default: all cores)'
            cand -o 'Write the report as JSON (schema: docs/bench-report.schema.json)'
            cand --output 'Write the report as JSON (schema: docs/bench-report.schema.json)'
            cand --csv 'Append one row per search setting to this CSV file'
            cand --plot 'Draw recall (x) against QPS (y, log scale) as SVG, with any --compare runs'
            cand --rate 'Target ingest rate of --streaming in rows per second (default: as fast as possible)'
            cand --search-threads 'Threads searching while --streaming inserts, 0 (ingest only) to 1024 (default: 1)'
            cand --auto-flush-rows 'Create the --streaming or --fresh collection with this auto_flush_rows: background flushes, index builds and tiered merges while rows arrive (default: 0, off, for --streaming; 16384 for --fresh)'
            cand --optimize-at 'Start an optimize (one build thread) once --streaming has inserted ROWS rows, and report the writes during it next to the rest of the run'
            cand --window 'Length of a --streaming report window, e.g. 1s, 500ms (default: 1s)'
            cand --flush-every 'Flush after every ROWS rows --streaming inserts (default: 0, never)'
            cand --fresh 'Search with this share of the rows fresh, e.g. 0.3, against a fully indexed collection: right after the inserts and once the backlog drained (no load or concurrent phases)'
            cand --merge-factor 'Segments of one size tier the --fresh collection''s background merges into one, 2 to 1000 (default: the engine''s, 10)'
            cand --target-recall 'The recall at which --fresh compares the states'' p50 latency (default: 0.95)'
            cand --repeat 'Interleaved rounds (default: 1): of the search phases over every --sweep setting (each reports its median round by serial QPS, and every round''s QPS), of --fresh''s baseline and drained passes, or of --text''s query kinds'
            cand --text 'Full-text and hybrid search: index this text key of base.jsonl (a string field with a full-text index, alone and beside the vectors), then time text, dense and RRF hybrid (dense + text) queries; each query''s text is its --text-query-key in queries.jsonl'
            cand --text-index 'The full-text index of --text (JSON, as a schema''s string field takes it)'
            cand --text-query-key 'The key of queries.jsonl holding each --text query''s text (an array of strings is joined by spaces)'
            cand --sparse-budget 'With --text: the sparse queries stop after scoring N postings per segment (approximate; their recall against brute force is reported). Default: exact'
            cand --compare 'Reports to print side by side (after this run''s, if a dataset is given), with ratios to the first'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --skip-load 'Reuse the collection at --path: no create, insert or optimize'
            cand --streaming 'Insert and search at once, reported over time (no load or search phases)'
            cand --hold-snapshot '--streaming''s insert thread holds the newest snapshot between batches, as a program that queries between its writes does'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;tui'= {
            cand --field 'Vector field to search (default: the only one)'
            cand --text-field 'Hybrid queries: add a BM25 branch over this full-text field, its query the sampled row''s text (first 32 words), fused with the vector query by RRF'
            cand --sparse-field 'Hybrid queries: add an exact sparse branch over this sparse field, its query the sampled row''s sparse vector'
            cand --queries 'Query vectors, .fvecs or .npy (default: sampled from the collection)'
            cand --max-queries 'Most queries read from --queries'
            cand --gt 'Ground truth of --queries, .ivecs or .npy (keys must be dataset ids)'
            cand --filter 'Filter the `f` key turns on and off (on at the start)'
            cand --param 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins'
            cand -k 'Neighbours per query'
            cand --k 'Neighbours per query'
            cand --ef 'Search breadth of graph indexes, 1 to 100000 (HNSW ef, Vamana query list; default: the index''s)'
            cand --nprobe 'Lists an IVF index probes per query, 1 to 65536 (default: the index''s)'
            cand --refine 'Re-rank factor of quantized indexes, 0 to 1000 (0: codes only; default: the index''s)'
            cand --concurrency 'Workload threads at the start (default: all cores)'
            cand --recall-sample 'Queries with an exact-search reference for recall when there is no --gt'
            cand --duration 'Stop after this long (e.g. 10s, 2m); headless runs default to 10s'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --write 'Open for writing (takes the writer lock), so the Optimize view can optimize'
            cand --headless 'No screen: run the workload for --duration, then print the panel values'
            cand --json 'With --headless: print the values as one JSON object'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;verify'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --deep 'Re-encode every row''s codes and measure index recall on sampled stored vectors'
            cand --json 'Print the whole report as one JSON object'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;repair'= {
            cand --schema 'JSON schema file, for when no manifest holds a readable schema'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --dry-run 'Print the plan and change nothing'
            cand --yes 'Apply the plan without asking'
            cand --purge-lost-found 'Only empty DIR/lost+found/ (what crash recovery and repair kept), nothing else'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;backup'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --incremental 'Update the earlier backup in DEST: copy only the files it lacks'
            cand --copy 'Copy every file instead of hard-linking the immutable ones'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;restore'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;versions'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;tag'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --delete 'Delete the tag NAME (the version it named stays until vacuum if nothing keeps it)'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;checkout'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;vacuum'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;inspect'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand segments 'Segments: rows, deletions, bytes per file, creation time'
            cand fields 'Fields: type, dimension, metric, index, quantization, build state'
            cand graph 'Graph topology of a vector field, one row per segment and level'
            cand lists 'IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates'
            cand disk 'Node blocks of a disk index, per segment: layout, entry point, cache'
            cand memory 'The engine''s memory by kind, beside the process RSS'
            cand wal 'WAL files: records, bytes, bad frames, torn tails, unsynced records'
            cand doc 'Where a key lives: live row, older versions, deleted rows, WAL records'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;inspect;segments'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;inspect;fields'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;inspect;graph'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;inspect;lists'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;inspect;disk'= {
            cand --node 'Show this node (a row of each segment) as its block holds it: neighbours, norm and the head of its vector'
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;inspect;memory'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;inspect;wal'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;inspect;doc'= {
            cand --mode 'Output mode (default: table on a terminal, tsv otherwise)'
            cand --memory-budget 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on'
            cand --wait 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements'
            cand --no-headers 'Leave out the header row'
            cand --no-mmap 'Read segment and index files with read(2) instead of mapping them'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'xvec;inspect;help'= {
            cand segments 'Segments: rows, deletions, bytes per file, creation time'
            cand fields 'Fields: type, dimension, metric, index, quantization, build state'
            cand graph 'Graph topology of a vector field, one row per segment and level'
            cand lists 'IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates'
            cand disk 'Node blocks of a disk index, per segment: layout, entry point, cache'
            cand memory 'The engine''s memory by kind, beside the process RSS'
            cand wal 'WAL files: records, bytes, bad frames, torn tails, unsynced records'
            cand doc 'Where a key lives: live row, older versions, deleted rows, WAL records'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;inspect;help;segments'= {
        }
        &'xvec;inspect;help;fields'= {
        }
        &'xvec;inspect;help;graph'= {
        }
        &'xvec;inspect;help;lists'= {
        }
        &'xvec;inspect;help;disk'= {
        }
        &'xvec;inspect;help;memory'= {
        }
        &'xvec;inspect;help;wal'= {
        }
        &'xvec;inspect;help;doc'= {
        }
        &'xvec;inspect;help;help'= {
        }
        &'xvec;help'= {
            cand create 'Create a collection from a JSON schema file or --field/--vector flags.'
            cand import 'Import documents from JSON Lines, CSV, Parquet, or raw vectors (.fvecs/.npy).'
            cand insert 'Insert new documents; a key that exists already fails.'
            cand upsert 'Insert documents, or merge the given fields into existing ones.'
            cand update 'Replace the given fields of existing documents; a missing key fails.'
            cand delete 'Delete documents by key, or every document matching --where.'
            cand fetch 'Print documents by primary key.'
            cand query 'Search by vector, key, file row, text (BM25) or sparse vector, or fuse several.'
            cand scan 'Browse rows a page at a time, by key or by a field (alias: select).'
            cand explain 'Show how a query, count or scan runs: index or scan per predicate and segment.'
            cand count 'Count live documents, or per value of a field (facets), or field statistics.'
            cand analyze 'Show the terms a full-text field''s analyzer makes of a text.'
            cand vocabulary 'Write the BM25 vocabulary of a string field''s documents to a file.'
            cand flush 'Seal the write-ahead log into an immutable, memory-mapped segment.'
            cand optimize 'Compact segments and build the vector indexes (HNSW, quantized codes).'
            cand alter 'Change the schema: add, drop, rename, widen fields; add, drop, set indexes.'
            cand describe 'Show the schema, index parameters, counts and size.'
            cand stats 'Show segments, deletions, WAL size and the memory the engine holds.'
            cand export 'Write documents as JSON Lines, CSV, Parquet, or vectors as .npy/.fvecs.'
            cand schema 'Print the schema as JSON, as `create --schema` and `repair --schema` read it.'
            cand dump 'Print a script that recreates the collection, or write it to a directory.'
            cand shell 'Interactive shell over a collection, or run a script.'
            cand completions 'Print a completion script for a shell.'
            cand man 'Write the man pages, one per command, into a directory.'
            cand quickstart 'Build a sample collection from the bundled WordNet data and query it.'
            cand bench 'Benchmark load time, search speed, recall and memory on a dataset.'
            cand tui 'Live dashboard: run a search workload, watch QPS, latency, recall and memory.'
            cand verify 'Check every file, checksum, graph and code of a collection.'
            cand repair 'Repair a damaged collection: plan, confirm, then rebuild and republish.'
            cand backup 'Copy a live collection to DEST, consistently, while writers keep writing.'
            cand restore 'Bring a backup back into a new or empty directory, after it verifies.'
            cand versions 'List the versions of a collection kept for time travel, oldest first.'
            cand tag 'Name a version (the live one by default), or list or delete tags.'
            cand checkout 'Publish an older version again as the newest (undo to that version).'
            cand vacuum 'Remove the versions nothing keeps any more, and the files only they use.'
            cand inspect 'Show segments, fields, graphs, memory, the WAL, or where a key lives.'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'xvec;help;create'= {
        }
        &'xvec;help;import'= {
        }
        &'xvec;help;insert'= {
        }
        &'xvec;help;upsert'= {
        }
        &'xvec;help;update'= {
        }
        &'xvec;help;delete'= {
        }
        &'xvec;help;fetch'= {
        }
        &'xvec;help;query'= {
        }
        &'xvec;help;scan'= {
        }
        &'xvec;help;explain'= {
            cand query 'Explain a query (the flags of `query`).'
            cand count 'Explain a count, --group-by or --stats (the flags of `count`).'
            cand scan 'Explain a scan (the flags of `scan`): the filter, then the rows each source read.'
            cand analyze 'Explain a query with the time each step took.'
        }
        &'xvec;help;explain;query'= {
        }
        &'xvec;help;explain;count'= {
        }
        &'xvec;help;explain;scan'= {
        }
        &'xvec;help;explain;analyze'= {
            cand query 'Explain a query with timings (the flags of `query`).'
            cand count 'Explain a count with timings (the flags of `count`).'
            cand scan 'Explain a scan with timings (the flags of `scan`).'
        }
        &'xvec;help;explain;analyze;query'= {
        }
        &'xvec;help;explain;analyze;count'= {
        }
        &'xvec;help;explain;analyze;scan'= {
        }
        &'xvec;help;count'= {
        }
        &'xvec;help;analyze'= {
        }
        &'xvec;help;vocabulary'= {
        }
        &'xvec;help;flush'= {
        }
        &'xvec;help;optimize'= {
        }
        &'xvec;help;alter'= {
            cand add-field 'Add a field; rows already written read its default, or NULL'
            cand drop-field 'Drop a field and its indexes; optimize reclaims its bytes'
            cand rename-field 'Rename a field; its data and indexes stay as they are'
            cand alter-field 'Widen a field''s type (int32 to int64, float to double, string to array_string, ...)'
            cand add-index 'Add a scalar or full-text index to a field and build it for every segment'
            cand drop-index 'Drop a scalar or full-text index from a field; filters on it scan its column again'
            cand set-index 'Change a vector field''s index (kind, parameters, quantization); waits for the build'
        }
        &'xvec;help;alter;add-field'= {
        }
        &'xvec;help;alter;drop-field'= {
        }
        &'xvec;help;alter;rename-field'= {
        }
        &'xvec;help;alter;alter-field'= {
        }
        &'xvec;help;alter;add-index'= {
        }
        &'xvec;help;alter;drop-index'= {
        }
        &'xvec;help;alter;set-index'= {
        }
        &'xvec;help;describe'= {
        }
        &'xvec;help;stats'= {
        }
        &'xvec;help;export'= {
        }
        &'xvec;help;schema'= {
        }
        &'xvec;help;dump'= {
        }
        &'xvec;help;shell'= {
        }
        &'xvec;help;completions'= {
        }
        &'xvec;help;man'= {
        }
        &'xvec;help;quickstart'= {
        }
        &'xvec;help;bench'= {
        }
        &'xvec;help;tui'= {
        }
        &'xvec;help;verify'= {
        }
        &'xvec;help;repair'= {
        }
        &'xvec;help;backup'= {
        }
        &'xvec;help;restore'= {
        }
        &'xvec;help;versions'= {
        }
        &'xvec;help;tag'= {
        }
        &'xvec;help;checkout'= {
        }
        &'xvec;help;vacuum'= {
        }
        &'xvec;help;inspect'= {
            cand segments 'Segments: rows, deletions, bytes per file, creation time'
            cand fields 'Fields: type, dimension, metric, index, quantization, build state'
            cand graph 'Graph topology of a vector field, one row per segment and level'
            cand lists 'IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates'
            cand disk 'Node blocks of a disk index, per segment: layout, entry point, cache'
            cand memory 'The engine''s memory by kind, beside the process RSS'
            cand wal 'WAL files: records, bytes, bad frames, torn tails, unsynced records'
            cand doc 'Where a key lives: live row, older versions, deleted rows, WAL records'
        }
        &'xvec;help;inspect;segments'= {
        }
        &'xvec;help;inspect;fields'= {
        }
        &'xvec;help;inspect;graph'= {
        }
        &'xvec;help;inspect;lists'= {
        }
        &'xvec;help;inspect;disk'= {
        }
        &'xvec;help;inspect;memory'= {
        }
        &'xvec;help;inspect;wal'= {
        }
        &'xvec;help;inspect;doc'= {
        }
        &'xvec;help;help'= {
        }
    ]
    $completions[$command]
}
