
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'xvec' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'xvec'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'xvec' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a collection from a JSON schema file or --field/--vector flags.')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import documents from JSON Lines, CSV, Parquet, or raw vectors (.fvecs/.npy).')
            [CompletionResult]::new('insert', 'insert', [CompletionResultType]::ParameterValue, 'Insert new documents; a key that exists already fails.')
            [CompletionResult]::new('upsert', 'upsert', [CompletionResultType]::ParameterValue, 'Insert documents, or merge the given fields into existing ones.')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Replace the given fields of existing documents; a missing key fails.')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete documents by key, or every document matching --where.')
            [CompletionResult]::new('fetch', 'fetch', [CompletionResultType]::ParameterValue, 'Print documents by primary key.')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Search by vector, key, file row, text (BM25) or sparse vector, or fuse several.')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Browse rows a page at a time, by key or by a field (alias: select).')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Show how a query, count or scan runs: index or scan per predicate and segment.')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Count live documents, or per value of a field (facets), or field statistics.')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Show the terms a full-text field''s analyzer makes of a text.')
            [CompletionResult]::new('vocabulary', 'vocabulary', [CompletionResultType]::ParameterValue, 'Write the BM25 vocabulary of a string field''s documents to a file.')
            [CompletionResult]::new('flush', 'flush', [CompletionResultType]::ParameterValue, 'Seal the write-ahead log into an immutable, memory-mapped segment.')
            [CompletionResult]::new('optimize', 'optimize', [CompletionResultType]::ParameterValue, 'Compact segments and build the vector indexes (HNSW, quantized codes).')
            [CompletionResult]::new('alter', 'alter', [CompletionResultType]::ParameterValue, 'Change the schema: add, drop, rename, widen fields; add, drop, set indexes.')
            [CompletionResult]::new('describe', 'describe', [CompletionResultType]::ParameterValue, 'Show the schema, index parameters, counts and size.')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Show segments, deletions, WAL size and the memory the engine holds.')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write documents as JSON Lines, CSV, Parquet, or vectors as .npy/.fvecs.')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the schema as JSON, as `create --schema` and `repair --schema` read it.')
            [CompletionResult]::new('dump', 'dump', [CompletionResultType]::ParameterValue, 'Print a script that recreates the collection, or write it to a directory.')
            [CompletionResult]::new('shell', 'shell', [CompletionResultType]::ParameterValue, 'Interactive shell over a collection, or run a script.')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a completion script for a shell.')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write the man pages, one per command, into a directory.')
            [CompletionResult]::new('quickstart', 'quickstart', [CompletionResultType]::ParameterValue, 'Build a sample collection from the bundled WordNet data and query it.')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Benchmark load time, search speed, recall and memory on a dataset.')
            [CompletionResult]::new('tui', 'tui', [CompletionResultType]::ParameterValue, 'Live dashboard: run a search workload, watch QPS, latency, recall and memory.')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check every file, checksum, graph and code of a collection.')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Repair a damaged collection: plan, confirm, then rebuild and republish.')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Copy a live collection to DEST, consistently, while writers keep writing.')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring a backup back into a new or empty directory, after it verifies.')
            [CompletionResult]::new('versions', 'versions', [CompletionResultType]::ParameterValue, 'List the versions of a collection kept for time travel, oldest first.')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Name a version (the live one by default), or list or delete tags.')
            [CompletionResult]::new('checkout', 'checkout', [CompletionResultType]::ParameterValue, 'Publish an older version again as the newest (undo to that version).')
            [CompletionResult]::new('vacuum', 'vacuum', [CompletionResultType]::ParameterValue, 'Remove the versions nothing keeps any more, and the files only they use.')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Show segments, fields, graphs, memory, the WAL, or where a key lives.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;create' {
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'JSON schema: a file, `-` for standard input (in a shell script: the lines after the statement up to `\.`), or the JSON itself when it starts with `{`')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'A scalar field, NAME:TYPE or NAME:TYPE:nullable (repeatable)')
            [CompletionResult]::new('--vector', '--vector', [CompletionResultType]::ParameterName, 'A vector field, NAME:DIM:METRIC[:fp32|fp16|int8][:nullable] (repeatable)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Index of every --vector field: flat (default), hnsw, or its JSON parameters, e.g. ''{"type": "hnsw", "m": 16, "quantize": "int8", "refine": 4}''')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Collection name with --field/--vector (default: the directory''s name)')
            [CompletionResult]::new('--auto-flush-rows', '--auto-flush-rows', [CompletionResultType]::ParameterName, 'Keep the collection indexed as it grows: flush the memtable at ROWS rows, index each new segment and merge segments in tiers in the background (0: only when asked)')
            [CompletionResult]::new('--auto-flush-bytes', '--auto-flush-bytes', [CompletionResultType]::ParameterName, 'Also flush when the memtable takes SIZE of memory, e.g. 64MiB (turns background maintenance on like --auto-flush-rows)')
            [CompletionResult]::new('--idle-optimize-ms', '--idle-optimize-ms', [CompletionResultType]::ParameterName, 'Once writes pause for MS milliseconds, background maintenance flushes the memtable and merges small segments into one, as optimize would (0: never)')
            [CompletionResult]::new('--merge-factor', '--merge-factor', [CompletionResultType]::ParameterName, 'Segments of one size tier that background maintenance merges into one')
            [CompletionResult]::new('--max-docs-per-segment', '--max-docs-per-segment', [CompletionResultType]::ParameterName, 'Most documents one segment holds after optimize or a merge')
            [CompletionResult]::new('--keep-versions', '--keep-versions', [CompletionResultType]::ParameterName, 'Keep the N newest superseded versions for time travel (`--as-of`) and checkout (0: none, each publish removes what it superseded)')
            [CompletionResult]::new('--keep-for', '--keep-for', [CompletionResultType]::ParameterName, 'Also keep every version superseded less than SECS seconds ago')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;import' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Input format (default: from the file''s extension)')
            [CompletionResult]::new('--key-field', '--key-field', [CompletionResultType]::ParameterName, 'Member or column that holds the primary key (`_key`, as dump and export write it, when the input has it and no `id`)')
            [CompletionResult]::new('--vectors', '--vectors', [CompletionResultType]::ParameterName, 'Take a vector field from a .fvecs/.npy file: row i of the input gets row i')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'Vector field that raw vectors fill (default: the only one)')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Keys of raw vectors, one per line (default: FILE.ids if it exists, else row numbers from 0)')
            [CompletionResult]::new('--sparse-bm25', '--sparse-bm25', [CompletionResultType]::ParameterName, 'Fill the sparse field TARGET with the BM25 weights of each row''s SOURCE text over the terms of the vocabulary file VOCAB (made by `xvec vocabulary`); repeatable')
            [CompletionResult]::new('--batch-size', '--batch-size', [CompletionResultType]::ParameterName, 'Documents per write batch (one WAL sync each)')
            [CompletionResult]::new('--max-errors', '--max-errors', [CompletionResultType]::ParameterName, 'Stop once more than N rows were bad (default: never; with --atomic, 0); the batches before stay, unless --atomic')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--upsert', '--upsert', [CompletionResultType]::ParameterName, 'Insert or merge instead of failing on existing keys')
            [CompletionResult]::new('--skip-existing', '--skip-existing', [CompletionResultType]::ParameterName, 'Skip rows whose key exists already (resuming an import that stopped part-way)')
            [CompletionResult]::new('--atomic', '--atomic', [CompletionResultType]::ParameterName, 'All or nothing: stage every row, publish them as one version at the end; an error, a bad row (past --max-errors) or Ctrl-C commits none')
            [CompletionResult]::new('--flush', '--flush', [CompletionResultType]::ParameterName, 'Flush into a segment when done (the default for more rows than the collection''s auto_flush_rows, 10000 when that is 0)')
            [CompletionResult]::new('--no-flush', '--no-flush', [CompletionResultType]::ParameterName, 'Keep the rows in the WAL even after a large import (each open replays them until a flush)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;insert' {
            [CompletionResult]::new('--key-field', '--key-field', [CompletionResultType]::ParameterName, 'Member that holds the primary key')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;upsert' {
            [CompletionResult]::new('--key-field', '--key-field', [CompletionResultType]::ParameterName, 'Member that holds the primary key')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;update' {
            [CompletionResult]::new('--key-field', '--key-field', [CompletionResultType]::ParameterName, 'Member that holds the primary key')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;delete' {
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Delete every document matching this filter')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;fetch' {
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Fields to print, comma-separated (default: all, vectors too)')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;query' {
            [CompletionResult]::new('--pk', '--pk', [CompletionResultType]::ParameterName, 'Use the stored vector of this document')
            [CompletionResult]::new('--vector-file', '--vector-file', [CompletionResultType]::ParameterName, 'Take the query vector from a .fvecs/.npy file (with --row)')
            [CompletionResult]::new('--row', '--row', [CompletionResultType]::ParameterName, 'Row of --vector-file, from 0')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'Vector field to search (needed when the schema has several)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Search an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'Number of results, 1 to 100000')
            [CompletionResult]::new('--k', '--k', [CompletionResultType]::ParameterName, 'Number of results, 1 to 100000')
            [CompletionResult]::new('--ef', '--ef', [CompletionResultType]::ParameterName, 'Search breadth of graph indexes (hnsw ef, vamana query list), k to 100000; refused on other indexes')
            [CompletionResult]::new('--nprobe', '--nprobe', [CompletionResultType]::ParameterName, 'Lists an ivf index probes, 1 to 65536 (of its nlist; more is slower and finds more); refused on other indexes')
            [CompletionResult]::new('--target-recall', '--target-recall', [CompletionResultType]::ParameterName, 'Instead of --nprobe: probe in each segment the lists its build measured as holding this share of its rows'' 10 nearest neighbours (above 0, at most 1); ivf only')
            [CompletionResult]::new('--refine', '--refine', [CompletionResultType]::ParameterName, 'Re-rank REFINE × k candidates of a quantized index with the original vectors; REFINE × k is at most 1000000; refused on an index without quantization')
            [CompletionResult]::new('--beam-width', '--beam-width', [CompletionResultType]::ParameterName, 'Nodes a disk index expands, and so blocks it reads at once, per hop, 1 to 64 (default: the index''s beam_width; wider: more reads in fewer round trips); refused on other indexes')
            [CompletionResult]::new('--group-by', '--group-by', [CompletionResultType]::ParameterName, 'Group results by this scalar field: -k groups, best first, of --per-group hits')
            [CompletionResult]::new('--per-group', '--per-group', [CompletionResultType]::ParameterName, 'Hits per group with --group-by; k × N is at most 1000000')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Fields to print, comma-separated (default: all scalar fields)')
            [CompletionResult]::new('--text', '--text', [CompletionResultType]::ParameterName, 'Also rank by BM25 over a full-text field (a string field with an fts index), fused with the vector query when one is given; e.g. --text ''dog leash''')
            [CompletionResult]::new('--text-field', '--text-field', [CompletionResultType]::ParameterName, 'Full-text field for --text, NAME or NAME^BOOST (its scores times BOOST); repeat it to search several fields at once, each row scoring the sum (default: the schema''s only full-text field)')
            [CompletionResult]::new('--sparse', '--sparse', [CompletionResultType]::ParameterName, 'Also rank by inner product with this sparse vector over a sparse field, exact: ''{"indices": [3, 17], "values": [0.5, 1.2]}'' or ''{"3": 0.5, "17": 1.2}''')
            [CompletionResult]::new('--sparse-text', '--sparse-text', [CompletionResultType]::ParameterName, 'Also rank by the BM25 weights of a sparse field (filled by import --sparse-bm25): the text''s terms in the --vocabulary file, each at weight 1')
            [CompletionResult]::new('--vocabulary', '--vocabulary', [CompletionResultType]::ParameterName, 'The vocabulary file the sparse field''s weights were made with, for --sparse-text')
            [CompletionResult]::new('--sparse-field', '--sparse-field', [CompletionResultType]::ParameterName, 'Sparse field for --sparse or --sparse-text (needed when the schema has several)')
            [CompletionResult]::new('--sparse-budget', '--sparse-budget', [CompletionResultType]::ParameterName, 'Approximate --sparse or --sparse-text: each segment''s index search stops after scoring N postings (default: exact)')
            [CompletionResult]::new('--keys', '--keys', [CompletionResultType]::ParameterName, 'Also rank these documents first, in this order (a key-lookup branch), comma-separated')
            [CompletionResult]::new('--fusion', '--fusion', [CompletionResultType]::ParameterName, 'How the branches (vector, --text, --sparse, --keys) are fused: rrf (reciprocal rank fusion) or weighted (a weighted sum of min-max scaled scores, see --weights)')
            [CompletionResult]::new('--rrf-k', '--rrf-k', [CompletionResultType]::ParameterName, 'RRF''s constant k (above 0)')
            [CompletionResult]::new('--weights', '--weights', [CompletionResultType]::ParameterName, '--fusion weighted: one weight per branch, in the order vector, text, sparse, keys')
            [CompletionResult]::new('--branch-k', '--branch-k', [CompletionResultType]::ParameterName, 'Hits each branch ranks before fusion, 1 to 100000 (default: -k)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole query as one JSON object, or @FILE to read it from a file: ''{"k": 5, "filter": "...", "fields": [...], "fusion": "rrf", "branches": [{"vector": [...]}, {"key": "K"}, {"text": "...", "fields": ["gloss^2"]}, {"sparse": {...}}, {"keys": [...]}]}'' (a branch may also give its field, k, ef, nprobe, refine, beam_width or budget; fusion may be {"rrf": K} or {"weighted": [w, ...]})')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--exclude-self', '--exclude-self', [CompletionResultType]::ParameterName, 'With --pk: leave that document out of the results (it is its own nearest neighbour, first at every k)')
            [CompletionResult]::new('--with-vectors', '--with-vectors', [CompletionResultType]::ParameterName, 'Also print vector fields')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;scan' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Fields to print, comma-separated (default: all, vectors too)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Rows to print, at least 1')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many rows first (after --after''s cursor, if any)')
            [CompletionResult]::new('--order-by', '--order-by', [CompletionResultType]::ParameterName, 'Order by this scalar field, then by key (default: by key); `FIELD desc` or --desc for descending order')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Start after this cursor: the one a page''s footer gives (in key order, a key)')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Print every row the filter keeps (no --limit)')
            [CompletionResult]::new('--desc', '--desc', [CompletionResultType]::ParameterName, 'Descending order')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;explain' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Explain a query (the flags of `query`).')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Explain a count, --group-by or --stats (the flags of `count`).')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Explain a scan (the flags of `scan`): the filter, then the rows each source read.')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Explain a query with the time each step took.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;explain;query' {
            [CompletionResult]::new('--pk', '--pk', [CompletionResultType]::ParameterName, 'Use the stored vector of this document')
            [CompletionResult]::new('--vector-file', '--vector-file', [CompletionResultType]::ParameterName, 'Take the query vector from a .fvecs/.npy file (with --row)')
            [CompletionResult]::new('--row', '--row', [CompletionResultType]::ParameterName, 'Row of --vector-file, from 0')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'Vector field to search (needed when the schema has several)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Search an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'Number of results, 1 to 100000')
            [CompletionResult]::new('--k', '--k', [CompletionResultType]::ParameterName, 'Number of results, 1 to 100000')
            [CompletionResult]::new('--ef', '--ef', [CompletionResultType]::ParameterName, 'Search breadth of graph indexes (hnsw ef, vamana query list), k to 100000; refused on other indexes')
            [CompletionResult]::new('--nprobe', '--nprobe', [CompletionResultType]::ParameterName, 'Lists an ivf index probes, 1 to 65536 (of its nlist; more is slower and finds more); refused on other indexes')
            [CompletionResult]::new('--target-recall', '--target-recall', [CompletionResultType]::ParameterName, 'Instead of --nprobe: probe in each segment the lists its build measured as holding this share of its rows'' 10 nearest neighbours (above 0, at most 1); ivf only')
            [CompletionResult]::new('--refine', '--refine', [CompletionResultType]::ParameterName, 'Re-rank REFINE × k candidates of a quantized index with the original vectors; REFINE × k is at most 1000000; refused on an index without quantization')
            [CompletionResult]::new('--beam-width', '--beam-width', [CompletionResultType]::ParameterName, 'Nodes a disk index expands, and so blocks it reads at once, per hop, 1 to 64 (default: the index''s beam_width; wider: more reads in fewer round trips); refused on other indexes')
            [CompletionResult]::new('--group-by', '--group-by', [CompletionResultType]::ParameterName, 'Group results by this scalar field: -k groups, best first, of --per-group hits')
            [CompletionResult]::new('--per-group', '--per-group', [CompletionResultType]::ParameterName, 'Hits per group with --group-by; k × N is at most 1000000')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Fields to print, comma-separated (default: all scalar fields)')
            [CompletionResult]::new('--text', '--text', [CompletionResultType]::ParameterName, 'Also rank by BM25 over a full-text field (a string field with an fts index), fused with the vector query when one is given; e.g. --text ''dog leash''')
            [CompletionResult]::new('--text-field', '--text-field', [CompletionResultType]::ParameterName, 'Full-text field for --text, NAME or NAME^BOOST (its scores times BOOST); repeat it to search several fields at once, each row scoring the sum (default: the schema''s only full-text field)')
            [CompletionResult]::new('--sparse', '--sparse', [CompletionResultType]::ParameterName, 'Also rank by inner product with this sparse vector over a sparse field, exact: ''{"indices": [3, 17], "values": [0.5, 1.2]}'' or ''{"3": 0.5, "17": 1.2}''')
            [CompletionResult]::new('--sparse-text', '--sparse-text', [CompletionResultType]::ParameterName, 'Also rank by the BM25 weights of a sparse field (filled by import --sparse-bm25): the text''s terms in the --vocabulary file, each at weight 1')
            [CompletionResult]::new('--vocabulary', '--vocabulary', [CompletionResultType]::ParameterName, 'The vocabulary file the sparse field''s weights were made with, for --sparse-text')
            [CompletionResult]::new('--sparse-field', '--sparse-field', [CompletionResultType]::ParameterName, 'Sparse field for --sparse or --sparse-text (needed when the schema has several)')
            [CompletionResult]::new('--sparse-budget', '--sparse-budget', [CompletionResultType]::ParameterName, 'Approximate --sparse or --sparse-text: each segment''s index search stops after scoring N postings (default: exact)')
            [CompletionResult]::new('--keys', '--keys', [CompletionResultType]::ParameterName, 'Also rank these documents first, in this order (a key-lookup branch), comma-separated')
            [CompletionResult]::new('--fusion', '--fusion', [CompletionResultType]::ParameterName, 'How the branches (vector, --text, --sparse, --keys) are fused: rrf (reciprocal rank fusion) or weighted (a weighted sum of min-max scaled scores, see --weights)')
            [CompletionResult]::new('--rrf-k', '--rrf-k', [CompletionResultType]::ParameterName, 'RRF''s constant k (above 0)')
            [CompletionResult]::new('--weights', '--weights', [CompletionResultType]::ParameterName, '--fusion weighted: one weight per branch, in the order vector, text, sparse, keys')
            [CompletionResult]::new('--branch-k', '--branch-k', [CompletionResultType]::ParameterName, 'Hits each branch ranks before fusion, 1 to 100000 (default: -k)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole query as one JSON object, or @FILE to read it from a file: ''{"k": 5, "filter": "...", "fields": [...], "fusion": "rrf", "branches": [{"vector": [...]}, {"key": "K"}, {"text": "...", "fields": ["gloss^2"]}, {"sparse": {...}}, {"keys": [...]}]}'' (a branch may also give its field, k, ef, nprobe, refine, beam_width or budget; fusion may be {"rrf": K} or {"weighted": [w, ...]})')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--exclude-self', '--exclude-self', [CompletionResultType]::ParameterName, 'With --pk: leave that document out of the results (it is its own nearest neighbour, first at every k)')
            [CompletionResult]::new('--with-vectors', '--with-vectors', [CompletionResultType]::ParameterName, 'Also print vector fields')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;explain;count' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Count only documents matching this filter')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Count only documents matching this filter')
            [CompletionResult]::new('--group-by', '--group-by', [CompletionResultType]::ParameterName, 'Count the rows per value of this scalar or array field')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'With --group-by: the N most frequent values')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Statistics of these scalar fields, comma-separated: count, min, max, sum, avg')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;explain;scan' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Fields to print, comma-separated (default: all, vectors too)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Rows to print, at least 1')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many rows first (after --after''s cursor, if any)')
            [CompletionResult]::new('--order-by', '--order-by', [CompletionResultType]::ParameterName, 'Order by this scalar field, then by key (default: by key); `FIELD desc` or --desc for descending order')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Start after this cursor: the one a page''s footer gives (in key order, a key)')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Print every row the filter keeps (no --limit)')
            [CompletionResult]::new('--desc', '--desc', [CompletionResultType]::ParameterName, 'Descending order')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;explain;analyze' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Explain a query with timings (the flags of `query`).')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Explain a count with timings (the flags of `count`).')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Explain a scan with timings (the flags of `scan`).')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;explain;analyze;query' {
            [CompletionResult]::new('--pk', '--pk', [CompletionResultType]::ParameterName, 'Use the stored vector of this document')
            [CompletionResult]::new('--vector-file', '--vector-file', [CompletionResultType]::ParameterName, 'Take the query vector from a .fvecs/.npy file (with --row)')
            [CompletionResult]::new('--row', '--row', [CompletionResultType]::ParameterName, 'Row of --vector-file, from 0')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'Vector field to search (needed when the schema has several)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Search an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'Number of results, 1 to 100000')
            [CompletionResult]::new('--k', '--k', [CompletionResultType]::ParameterName, 'Number of results, 1 to 100000')
            [CompletionResult]::new('--ef', '--ef', [CompletionResultType]::ParameterName, 'Search breadth of graph indexes (hnsw ef, vamana query list), k to 100000; refused on other indexes')
            [CompletionResult]::new('--nprobe', '--nprobe', [CompletionResultType]::ParameterName, 'Lists an ivf index probes, 1 to 65536 (of its nlist; more is slower and finds more); refused on other indexes')
            [CompletionResult]::new('--target-recall', '--target-recall', [CompletionResultType]::ParameterName, 'Instead of --nprobe: probe in each segment the lists its build measured as holding this share of its rows'' 10 nearest neighbours (above 0, at most 1); ivf only')
            [CompletionResult]::new('--refine', '--refine', [CompletionResultType]::ParameterName, 'Re-rank REFINE × k candidates of a quantized index with the original vectors; REFINE × k is at most 1000000; refused on an index without quantization')
            [CompletionResult]::new('--beam-width', '--beam-width', [CompletionResultType]::ParameterName, 'Nodes a disk index expands, and so blocks it reads at once, per hop, 1 to 64 (default: the index''s beam_width; wider: more reads in fewer round trips); refused on other indexes')
            [CompletionResult]::new('--group-by', '--group-by', [CompletionResultType]::ParameterName, 'Group results by this scalar field: -k groups, best first, of --per-group hits')
            [CompletionResult]::new('--per-group', '--per-group', [CompletionResultType]::ParameterName, 'Hits per group with --group-by; k × N is at most 1000000')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Fields to print, comma-separated (default: all scalar fields)')
            [CompletionResult]::new('--text', '--text', [CompletionResultType]::ParameterName, 'Also rank by BM25 over a full-text field (a string field with an fts index), fused with the vector query when one is given; e.g. --text ''dog leash''')
            [CompletionResult]::new('--text-field', '--text-field', [CompletionResultType]::ParameterName, 'Full-text field for --text, NAME or NAME^BOOST (its scores times BOOST); repeat it to search several fields at once, each row scoring the sum (default: the schema''s only full-text field)')
            [CompletionResult]::new('--sparse', '--sparse', [CompletionResultType]::ParameterName, 'Also rank by inner product with this sparse vector over a sparse field, exact: ''{"indices": [3, 17], "values": [0.5, 1.2]}'' or ''{"3": 0.5, "17": 1.2}''')
            [CompletionResult]::new('--sparse-text', '--sparse-text', [CompletionResultType]::ParameterName, 'Also rank by the BM25 weights of a sparse field (filled by import --sparse-bm25): the text''s terms in the --vocabulary file, each at weight 1')
            [CompletionResult]::new('--vocabulary', '--vocabulary', [CompletionResultType]::ParameterName, 'The vocabulary file the sparse field''s weights were made with, for --sparse-text')
            [CompletionResult]::new('--sparse-field', '--sparse-field', [CompletionResultType]::ParameterName, 'Sparse field for --sparse or --sparse-text (needed when the schema has several)')
            [CompletionResult]::new('--sparse-budget', '--sparse-budget', [CompletionResultType]::ParameterName, 'Approximate --sparse or --sparse-text: each segment''s index search stops after scoring N postings (default: exact)')
            [CompletionResult]::new('--keys', '--keys', [CompletionResultType]::ParameterName, 'Also rank these documents first, in this order (a key-lookup branch), comma-separated')
            [CompletionResult]::new('--fusion', '--fusion', [CompletionResultType]::ParameterName, 'How the branches (vector, --text, --sparse, --keys) are fused: rrf (reciprocal rank fusion) or weighted (a weighted sum of min-max scaled scores, see --weights)')
            [CompletionResult]::new('--rrf-k', '--rrf-k', [CompletionResultType]::ParameterName, 'RRF''s constant k (above 0)')
            [CompletionResult]::new('--weights', '--weights', [CompletionResultType]::ParameterName, '--fusion weighted: one weight per branch, in the order vector, text, sparse, keys')
            [CompletionResult]::new('--branch-k', '--branch-k', [CompletionResultType]::ParameterName, 'Hits each branch ranks before fusion, 1 to 100000 (default: -k)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole query as one JSON object, or @FILE to read it from a file: ''{"k": 5, "filter": "...", "fields": [...], "fusion": "rrf", "branches": [{"vector": [...]}, {"key": "K"}, {"text": "...", "fields": ["gloss^2"]}, {"sparse": {...}}, {"keys": [...]}]}'' (a branch may also give its field, k, ef, nprobe, refine, beam_width or budget; fusion may be {"rrf": K} or {"weighted": [w, ...]})')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--exclude-self', '--exclude-self', [CompletionResultType]::ParameterName, 'With --pk: leave that document out of the results (it is its own nearest neighbour, first at every k)')
            [CompletionResult]::new('--with-vectors', '--with-vectors', [CompletionResultType]::ParameterName, 'Also print vector fields')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;explain;analyze;count' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Count only documents matching this filter')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Count only documents matching this filter')
            [CompletionResult]::new('--group-by', '--group-by', [CompletionResultType]::ParameterName, 'Count the rows per value of this scalar or array field')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'With --group-by: the N most frequent values')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Statistics of these scalar fields, comma-separated: count, min, max, sum, avg')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;explain;analyze;scan' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Only documents matching this filter, e.g. "pos = ''n'' AND n_lemmas > 1"')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Fields to print, comma-separated (default: all, vectors too)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Rows to print, at least 1')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many rows first (after --after''s cursor, if any)')
            [CompletionResult]::new('--order-by', '--order-by', [CompletionResultType]::ParameterName, 'Order by this scalar field, then by key (default: by key); `FIELD desc` or --desc for descending order')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Start after this cursor: the one a page''s footer gives (in key order, a key)')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Print every row the filter keeps (no --limit)')
            [CompletionResult]::new('--desc', '--desc', [CompletionResultType]::ParameterName, 'Descending order')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;explain;analyze;help' {
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Explain a query with timings (the flags of `query`).')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Explain a count with timings (the flags of `count`).')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Explain a scan with timings (the flags of `scan`).')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;explain;analyze;help;query' {
            break
        }
        'xvec;explain;analyze;help;count' {
            break
        }
        'xvec;explain;analyze;help;scan' {
            break
        }
        'xvec;explain;analyze;help;help' {
            break
        }
        'xvec;explain;help' {
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Explain a query (the flags of `query`).')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Explain a count, --group-by or --stats (the flags of `count`).')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Explain a scan (the flags of `scan`): the filter, then the rows each source read.')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Explain a query with the time each step took.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;explain;help;query' {
            break
        }
        'xvec;explain;help;count' {
            break
        }
        'xvec;explain;help;scan' {
            break
        }
        'xvec;explain;help;analyze' {
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Explain a query with timings (the flags of `query`).')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Explain a count with timings (the flags of `count`).')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Explain a scan with timings (the flags of `scan`).')
            break
        }
        'xvec;explain;help;analyze;query' {
            break
        }
        'xvec;explain;help;analyze;count' {
            break
        }
        'xvec;explain;help;analyze;scan' {
            break
        }
        'xvec;explain;help;help' {
            break
        }
        'xvec;count' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Count only documents matching this filter')
            [CompletionResult]::new('--where', '--where', [CompletionResultType]::ParameterName, 'Count only documents matching this filter')
            [CompletionResult]::new('--group-by', '--group-by', [CompletionResultType]::ParameterName, 'Count the rows per value of this scalar or array field')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'With --group-by: the N most frequent values')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Statistics of these scalar fields, comma-separated: count, min, max, sum, avg')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;analyze' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;vocabulary' {
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Analyzer and BM25 parameters, as a full-text index takes them, e.g. ''{"type": "fts", "filters": ["lowercase", "stem_en"], "k1": 1.2}'' (default: the field''s full-text index, else the default analyzer)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output file (default: standard output)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output file (default: standard output)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;flush' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;optimize' {
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Threads for index builds, 1 to 1024 (default: all cores; 1 builds deterministically)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;alter' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('add-field', 'add-field', [CompletionResultType]::ParameterValue, 'Add a field; rows already written read its default, or NULL')
            [CompletionResult]::new('drop-field', 'drop-field', [CompletionResultType]::ParameterValue, 'Drop a field and its indexes; optimize reclaims its bytes')
            [CompletionResult]::new('rename-field', 'rename-field', [CompletionResultType]::ParameterValue, 'Rename a field; its data and indexes stay as they are')
            [CompletionResult]::new('alter-field', 'alter-field', [CompletionResultType]::ParameterValue, 'Widen a field''s type (int32 to int64, float to double, string to array_string, ...)')
            [CompletionResult]::new('add-index', 'add-index', [CompletionResultType]::ParameterValue, 'Add a scalar or full-text index to a field and build it for every segment')
            [CompletionResult]::new('drop-index', 'drop-index', [CompletionResultType]::ParameterValue, 'Drop a scalar or full-text index from a field; filters on it scan its column again')
            [CompletionResult]::new('set-index', 'set-index', [CompletionResultType]::ParameterValue, 'Change a vector field''s index (kind, parameters, quantization); waits for the build')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;alter;add-field' {
            [CompletionResult]::new('--default', '--default', [CompletionResultType]::ParameterName, 'The value rows written before, and documents that leave the field out, get (JSON; a bare word is a string). Required for a field that is not nullable')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;alter;drop-field' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Drop the last vector field without asking')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;alter;rename-field' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;alter;alter-field' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'The wider type')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;alter;add-index' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;alter;drop-index' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;alter;set-index' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;alter;help' {
            [CompletionResult]::new('add-field', 'add-field', [CompletionResultType]::ParameterValue, 'Add a field; rows already written read its default, or NULL')
            [CompletionResult]::new('drop-field', 'drop-field', [CompletionResultType]::ParameterValue, 'Drop a field and its indexes; optimize reclaims its bytes')
            [CompletionResult]::new('rename-field', 'rename-field', [CompletionResultType]::ParameterValue, 'Rename a field; its data and indexes stay as they are')
            [CompletionResult]::new('alter-field', 'alter-field', [CompletionResultType]::ParameterValue, 'Widen a field''s type (int32 to int64, float to double, string to array_string, ...)')
            [CompletionResult]::new('add-index', 'add-index', [CompletionResultType]::ParameterValue, 'Add a scalar or full-text index to a field and build it for every segment')
            [CompletionResult]::new('drop-index', 'drop-index', [CompletionResultType]::ParameterValue, 'Drop a scalar or full-text index from a field; filters on it scan its column again')
            [CompletionResult]::new('set-index', 'set-index', [CompletionResultType]::ParameterValue, 'Change a vector field''s index (kind, parameters, quantization); waits for the build')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;alter;help;add-field' {
            break
        }
        'xvec;alter;help;drop-field' {
            break
        }
        'xvec;alter;help;rename-field' {
            break
        }
        'xvec;alter;help;alter-field' {
            break
        }
        'xvec;alter;help;add-index' {
            break
        }
        'xvec;alter;help;drop-index' {
            break
        }
        'xvec;alter;help;set-index' {
            break
        }
        'xvec;alter;help;help' {
            break
        }
        'xvec;describe' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;stats' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;export' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output file (default, or `-`: standard output; npy, fvecs and parquet need a file)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output file (default, or `-`: standard output; npy, fvecs and parquet need a file)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only documents matching this filter')
            [CompletionResult]::new('--fields', '--fields', [CompletionResultType]::ParameterName, 'Fields to write, comma-separated (default: all)')
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'Vector field of npy and fvecs (default: the only one)')
            [CompletionResult]::new('--key-field', '--key-field', [CompletionResultType]::ParameterName, 'Name of the key column (member in jsonl)')
            [CompletionResult]::new('--as-of', '--as-of', [CompletionResultType]::ParameterName, 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;schema' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;dump' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the script and its files to this directory instead (created if missing; it must not hold a dump yet)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the script and its files to this directory instead (created if missing; it must not hold a dump yet)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;shell' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Run the statements of this script (repeatable, runs in argv order with -c)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Run the statements of this script (repeatable, runs in argv order with -c)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Run this statement (repeatable, runs in argv order with -f)')
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'Run this statement (repeatable, runs in argv order with -f)')
            [CompletionResult]::new('--init', '--init', [CompletionResultType]::ParameterName, 'Run FILE before the first prompt or script instead of the default startup file')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--write', '--write', [CompletionResultType]::ParameterName, 'Allow writing statements (each takes the writer lock while it runs)')
            [CompletionResult]::new('--keep-going', '--keep-going', [CompletionResultType]::ParameterName, 'In batch mode, run the remaining statements after one fails (the exit status is still that of the first failure)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Do not run a startup file')
            [CompletionResult]::new('--no-init', '--no-init', [CompletionResultType]::ParameterName, 'Do not run a startup file')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;completions' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;man' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;quickstart' {
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'Directory with the sample data (default: the source tree''s commands/data)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;bench' {
            [CompletionResult]::new('--dataset', '--dataset', [CompletionResultType]::ParameterName, 'Dataset directory: base.fvecs + queries.fvecs (+ gt_<metric>_<k>.ivecs), or VectorDBBench''s train.parquet (or shuffle_train*.parquet) + test.parquet (+ neighbors.parquet)')
            [CompletionResult]::new('--base', '--base', [CompletionResultType]::ParameterName, 'Base vectors: .fvecs, .bvecs, .npy or .parquet')
            [CompletionResult]::new('--queries', '--queries', [CompletionResultType]::ParameterName, 'Query vectors: .fvecs, .bvecs, .npy or .parquet')
            [CompletionResult]::new('--gt', '--gt', [CompletionResultType]::ParameterName, 'Ground truth: .ivecs, integer .npy or neighbors .parquet (default: computed exactly)')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'Collection directory to create (default: a temporary one, removed afterwards)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Index type of the vector field')
            [CompletionResult]::new('--m', '--m', [CompletionResultType]::ParameterName, 'HNSW edges per node (default: the engine''s)')
            [CompletionResult]::new('--ef-construction', '--ef-construction', [CompletionResultType]::ParameterName, 'HNSW candidate list size while building (default: the engine''s)')
            [CompletionResult]::new('--degree', '--degree', [CompletionResultType]::ParameterName, 'Vamana, qg, disk: most neighbours per node (qg: a multiple of 32)')
            [CompletionResult]::new('--build-list', '--build-list', [CompletionResultType]::ParameterName, 'Vamana, qg, disk: candidate list size while building, L (default: the engine''s)')
            [CompletionResult]::new('--graph', '--graph', [CompletionResultType]::ParameterName, 'qg: the graph its blocks are laid out from (default: vamana)')
            [CompletionResult]::new('--alpha', '--alpha', [CompletionResultType]::ParameterName, 'Vamana, disk: prune relaxation, e.g. 1.2 (default: the engine''s)')
            [CompletionResult]::new('--nlist', '--nlist', [CompletionResultType]::ParameterName, 'IVF: lists per segment, 1..=65536 (default: the engine''s)')
            [CompletionResult]::new('--default-nprobe', '--default-nprobe', [CompletionResultType]::ParameterName, 'IVF: lists a query probes by default (default: the engine''s)')
            [CompletionResult]::new('--soar', '--soar', [CompletionResultType]::ParameterName, 'IVF: keep every row in a second list chosen by SOAR (default: off)')
            [CompletionResult]::new('--quantize', '--quantize', [CompletionResultType]::ParameterName, 'Vector codes inside the index (default: none)')
            [CompletionResult]::new('--bits', '--bits', [CompletionResultType]::ParameterName, 'Bits per dimension of RaBitQ codes, sign included, 1..=8 (default: the engine''s)')
            [CompletionResult]::new('--rotate', '--rotate', [CompletionResultType]::ParameterName, 'Rotate vectors before quantizing (default: on for int8, int4 and rabitq)')
            [CompletionResult]::new('--seed', '--seed', [CompletionResultType]::ParameterName, 'Seed of graph construction and rotation')
            [CompletionResult]::new('--metric', '--metric', [CompletionResultType]::ParameterName, 'Similarity metric')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'Neighbours per query; recall and nDCG are computed at this k')
            [CompletionResult]::new('--k', '--k', [CompletionResultType]::ParameterName, 'Neighbours per query; recall and nDCG are computed at this k')
            [CompletionResult]::new('--ef', '--ef', [CompletionResultType]::ParameterName, 'Search breadth of graph indexes, 1 to 100000 (default: the index''s own)')
            [CompletionResult]::new('--nprobe', '--nprobe', [CompletionResultType]::ParameterName, 'Lists an ivf index probes, 1 to 65536 (default: the index''s nprobe)')
            [CompletionResult]::new('--refine', '--refine', [CompletionResultType]::ParameterName, 'Re-rank REFINE × k candidates with the original vectors, REFINE 0 to 1000 (default: the index''s)')
            [CompletionResult]::new('--beam-width', '--beam-width', [CompletionResultType]::ParameterName, 'A disk index''s nodes expanded (blocks read at once) per hop, 1 to 64 (default: the index''s beam_width)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Use only the first N base vectors (ground truth is checked, or computed, for them)')
            [CompletionResult]::new('--batch-size', '--batch-size', [CompletionResultType]::ParameterName, 'Documents per insert call')
            [CompletionResult]::new('--batch', '--batch', [CompletionResultType]::ParameterName, 'Documents per insert call')
            [CompletionResult]::new('--optimize-concurrency', '--optimize-concurrency', [CompletionResultType]::ParameterName, 'Threads the optimize phase may use, 1 to 1024 (default: all cores)')
            [CompletionResult]::new('--mmap', '--mmap', [CompletionResultType]::ParameterName, 'Map segment files when reopening for search, or read them into memory')
            [CompletionResult]::new('--warmup', '--warmup', [CompletionResultType]::ParameterName, 'Untimed queries before the timed phases of each search setting, and again right before the serial pass')
            [CompletionResult]::new('--warmup-from', '--warmup-from', [CompletionResultType]::ParameterName, 'What the warm-up queries are: the measured queries, or base rows spread over the dataset (queries a cache that searches fill has not seen: a disk index''s)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Thread counts of the concurrent phase, e.g. 1,2,4 (default: 1 and all cores)')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'How long each concurrent phase runs, e.g. 30s, 0.2s, 500ms, 2m')
            [CompletionResult]::new('--cooldown', '--cooldown', [CompletionResultType]::ParameterName, 'Pause between the concurrent phases and the serial phase')
            [CompletionResult]::new('--sweep', '--sweep', [CompletionResultType]::ParameterName, 'Run the search phases once per value, e.g. ef=16,32,64,128,256 (ef, refine, nprobe or beam, a disk index''s beam width)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Every query carries this filter, e.g. "pos = ''v''": the base rows'' scalar attributes are loaded from the JSON Lines file beside the base vectors (base.jsonl beside base.fvecs), and ground truth is computed among the rows the filter allows')
            [CompletionResult]::new('--route', '--route', [CompletionResultType]::ParameterName, 'How segments with a graph index are searched: auto (the engine''s cost model picks graph or an exact scan of the allowed rows per segment), or forced to graph or exact, to measure one route against the other')
            [CompletionResult]::new('--gt-threads', '--gt-threads', [CompletionResultType]::ParameterName, 'Threads for computing ground truth when the dataset has none, 1 to 1024 (default: all cores)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the report as JSON (schema: docs/bench-report.schema.json)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the report as JSON (schema: docs/bench-report.schema.json)')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'Append one row per search setting to this CSV file')
            [CompletionResult]::new('--plot', '--plot', [CompletionResultType]::ParameterName, 'Draw recall (x) against QPS (y, log scale) as SVG, with any --compare runs')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'Target ingest rate of --streaming in rows per second (default: as fast as possible)')
            [CompletionResult]::new('--search-threads', '--search-threads', [CompletionResultType]::ParameterName, 'Threads searching while --streaming inserts, 0 (ingest only) to 1024 (default: 1)')
            [CompletionResult]::new('--auto-flush-rows', '--auto-flush-rows', [CompletionResultType]::ParameterName, 'Create the --streaming or --fresh collection with this auto_flush_rows: background flushes, index builds and tiered merges while rows arrive (default: 0, off, for --streaming; 16384 for --fresh)')
            [CompletionResult]::new('--optimize-at', '--optimize-at', [CompletionResultType]::ParameterName, 'Start an optimize (one build thread) once --streaming has inserted ROWS rows, and report the writes during it next to the rest of the run')
            [CompletionResult]::new('--window', '--window', [CompletionResultType]::ParameterName, 'Length of a --streaming report window, e.g. 1s, 500ms (default: 1s)')
            [CompletionResult]::new('--flush-every', '--flush-every', [CompletionResultType]::ParameterName, 'Flush after every ROWS rows --streaming inserts (default: 0, never)')
            [CompletionResult]::new('--fresh', '--fresh', [CompletionResultType]::ParameterName, 'Search with this share of the rows fresh, e.g. 0.3, against a fully indexed collection: right after the inserts and once the backlog drained (no load or concurrent phases)')
            [CompletionResult]::new('--merge-factor', '--merge-factor', [CompletionResultType]::ParameterName, 'Segments of one size tier the --fresh collection''s background merges into one, 2 to 1000 (default: the engine''s, 10)')
            [CompletionResult]::new('--target-recall', '--target-recall', [CompletionResultType]::ParameterName, 'The recall at which --fresh compares the states'' p50 latency (default: 0.95)')
            [CompletionResult]::new('--repeat', '--repeat', [CompletionResultType]::ParameterName, 'Interleaved rounds (default: 1): of the search phases over every --sweep setting (each reports its median round by serial QPS, and every round''s QPS), of --fresh''s baseline and drained passes, or of --text''s query kinds')
            [CompletionResult]::new('--text', '--text', [CompletionResultType]::ParameterName, 'Full-text and hybrid search: index this text key of base.jsonl (a string field with a full-text index, alone and beside the vectors), then time text, dense and RRF hybrid (dense + text) queries; each query''s text is its --text-query-key in queries.jsonl')
            [CompletionResult]::new('--text-index', '--text-index', [CompletionResultType]::ParameterName, 'The full-text index of --text (JSON, as a schema''s string field takes it)')
            [CompletionResult]::new('--text-query-key', '--text-query-key', [CompletionResultType]::ParameterName, 'The key of queries.jsonl holding each --text query''s text (an array of strings is joined by spaces)')
            [CompletionResult]::new('--sparse-budget', '--sparse-budget', [CompletionResultType]::ParameterName, 'With --text: the sparse queries stop after scoring N postings per segment (approximate; their recall against brute force is reported). Default: exact')
            [CompletionResult]::new('--compare', '--compare', [CompletionResultType]::ParameterName, 'Reports to print side by side (after this run''s, if a dataset is given), with ratios to the first')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--skip-load', '--skip-load', [CompletionResultType]::ParameterName, 'Reuse the collection at --path: no create, insert or optimize')
            [CompletionResult]::new('--streaming', '--streaming', [CompletionResultType]::ParameterName, 'Insert and search at once, reported over time (no load or search phases)')
            [CompletionResult]::new('--hold-snapshot', '--hold-snapshot', [CompletionResultType]::ParameterName, '--streaming''s insert thread holds the newest snapshot between batches, as a program that queries between its writes does')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;tui' {
            [CompletionResult]::new('--field', '--field', [CompletionResultType]::ParameterName, 'Vector field to search (default: the only one)')
            [CompletionResult]::new('--text-field', '--text-field', [CompletionResultType]::ParameterName, 'Hybrid queries: add a BM25 branch over this full-text field, its query the sampled row''s text (first 32 words), fused with the vector query by RRF')
            [CompletionResult]::new('--sparse-field', '--sparse-field', [CompletionResultType]::ParameterName, 'Hybrid queries: add an exact sparse branch over this sparse field, its query the sampled row''s sparse vector')
            [CompletionResult]::new('--queries', '--queries', [CompletionResultType]::ParameterName, 'Query vectors, .fvecs or .npy (default: sampled from the collection)')
            [CompletionResult]::new('--max-queries', '--max-queries', [CompletionResultType]::ParameterName, 'Most queries read from --queries')
            [CompletionResult]::new('--gt', '--gt', [CompletionResultType]::ParameterName, 'Ground truth of --queries, .ivecs or .npy (keys must be dataset ids)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Filter the `f` key turns on and off (on at the start)')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (''quoted'' or bare). Bound as a typed value, never spliced into the text; ''$NAME'' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement''s own --param wins')
            [CompletionResult]::new('-k', '-k', [CompletionResultType]::ParameterName, 'Neighbours per query')
            [CompletionResult]::new('--k', '--k', [CompletionResultType]::ParameterName, 'Neighbours per query')
            [CompletionResult]::new('--ef', '--ef', [CompletionResultType]::ParameterName, 'Search breadth of graph indexes, 1 to 100000 (HNSW ef, Vamana query list; default: the index''s)')
            [CompletionResult]::new('--nprobe', '--nprobe', [CompletionResultType]::ParameterName, 'Lists an IVF index probes per query, 1 to 65536 (default: the index''s)')
            [CompletionResult]::new('--refine', '--refine', [CompletionResultType]::ParameterName, 'Re-rank factor of quantized indexes, 0 to 1000 (0: codes only; default: the index''s)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Workload threads at the start (default: all cores)')
            [CompletionResult]::new('--recall-sample', '--recall-sample', [CompletionResultType]::ParameterName, 'Queries with an exact-search reference for recall when there is no --gt')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'Stop after this long (e.g. 10s, 2m); headless runs default to 10s')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--write', '--write', [CompletionResultType]::ParameterName, 'Open for writing (takes the writer lock), so the Optimize view can optimize')
            [CompletionResult]::new('--headless', '--headless', [CompletionResultType]::ParameterName, 'No screen: run the workload for --duration, then print the panel values')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'With --headless: print the values as one JSON object')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;verify' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--deep', '--deep', [CompletionResultType]::ParameterName, 'Re-encode every row''s codes and measure index recall on sampled stored vectors')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the whole report as one JSON object')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;repair' {
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'JSON schema file, for when no manifest holds a readable schema')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the plan and change nothing')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Apply the plan without asking')
            [CompletionResult]::new('--purge-lost-found', '--purge-lost-found', [CompletionResultType]::ParameterName, 'Only empty DIR/lost+found/ (what crash recovery and repair kept), nothing else')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;backup' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--incremental', '--incremental', [CompletionResultType]::ParameterName, 'Update the earlier backup in DEST: copy only the files it lacks')
            [CompletionResult]::new('--copy', '--copy', [CompletionResultType]::ParameterName, 'Copy every file instead of hard-linking the immutable ones')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;restore' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;versions' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;tag' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--delete', '--delete', [CompletionResultType]::ParameterName, 'Delete the tag NAME (the version it named stays until vacuum if nothing keeps it)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;checkout' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;vacuum' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;inspect' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('segments', 'segments', [CompletionResultType]::ParameterValue, 'Segments: rows, deletions, bytes per file, creation time')
            [CompletionResult]::new('fields', 'fields', [CompletionResultType]::ParameterValue, 'Fields: type, dimension, metric, index, quantization, build state')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Graph topology of a vector field, one row per segment and level')
            [CompletionResult]::new('lists', 'lists', [CompletionResultType]::ParameterValue, 'IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates')
            [CompletionResult]::new('disk', 'disk', [CompletionResultType]::ParameterValue, 'Node blocks of a disk index, per segment: layout, entry point, cache')
            [CompletionResult]::new('memory', 'memory', [CompletionResultType]::ParameterValue, 'The engine''s memory by kind, beside the process RSS')
            [CompletionResult]::new('wal', 'wal', [CompletionResultType]::ParameterValue, 'WAL files: records, bytes, bad frames, torn tails, unsynced records')
            [CompletionResult]::new('doc', 'doc', [CompletionResultType]::ParameterValue, 'Where a key lives: live row, older versions, deleted rows, WAL records')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;inspect;segments' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;inspect;fields' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;inspect;graph' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;inspect;lists' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;inspect;disk' {
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Show this node (a row of each segment) as its block holds it: neighbours, norm and the head of its vector')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;inspect;memory' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;inspect;wal' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;inspect;doc' {
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Output mode (default: table on a terminal, tsv otherwise)')
            [CompletionResult]::new('--memory-budget', '--memory-budget', [CompletionResultType]::ParameterName, 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection''s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Read segment and index files with read(2) instead of mapping them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'xvec;inspect;help' {
            [CompletionResult]::new('segments', 'segments', [CompletionResultType]::ParameterValue, 'Segments: rows, deletions, bytes per file, creation time')
            [CompletionResult]::new('fields', 'fields', [CompletionResultType]::ParameterValue, 'Fields: type, dimension, metric, index, quantization, build state')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Graph topology of a vector field, one row per segment and level')
            [CompletionResult]::new('lists', 'lists', [CompletionResultType]::ParameterValue, 'IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates')
            [CompletionResult]::new('disk', 'disk', [CompletionResultType]::ParameterValue, 'Node blocks of a disk index, per segment: layout, entry point, cache')
            [CompletionResult]::new('memory', 'memory', [CompletionResultType]::ParameterValue, 'The engine''s memory by kind, beside the process RSS')
            [CompletionResult]::new('wal', 'wal', [CompletionResultType]::ParameterValue, 'WAL files: records, bytes, bad frames, torn tails, unsynced records')
            [CompletionResult]::new('doc', 'doc', [CompletionResultType]::ParameterValue, 'Where a key lives: live row, older versions, deleted rows, WAL records')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;inspect;help;segments' {
            break
        }
        'xvec;inspect;help;fields' {
            break
        }
        'xvec;inspect;help;graph' {
            break
        }
        'xvec;inspect;help;lists' {
            break
        }
        'xvec;inspect;help;disk' {
            break
        }
        'xvec;inspect;help;memory' {
            break
        }
        'xvec;inspect;help;wal' {
            break
        }
        'xvec;inspect;help;doc' {
            break
        }
        'xvec;inspect;help;help' {
            break
        }
        'xvec;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a collection from a JSON schema file or --field/--vector flags.')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Import documents from JSON Lines, CSV, Parquet, or raw vectors (.fvecs/.npy).')
            [CompletionResult]::new('insert', 'insert', [CompletionResultType]::ParameterValue, 'Insert new documents; a key that exists already fails.')
            [CompletionResult]::new('upsert', 'upsert', [CompletionResultType]::ParameterValue, 'Insert documents, or merge the given fields into existing ones.')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Replace the given fields of existing documents; a missing key fails.')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete documents by key, or every document matching --where.')
            [CompletionResult]::new('fetch', 'fetch', [CompletionResultType]::ParameterValue, 'Print documents by primary key.')
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Search by vector, key, file row, text (BM25) or sparse vector, or fuse several.')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Browse rows a page at a time, by key or by a field (alias: select).')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Show how a query, count or scan runs: index or scan per predicate and segment.')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Count live documents, or per value of a field (facets), or field statistics.')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Show the terms a full-text field''s analyzer makes of a text.')
            [CompletionResult]::new('vocabulary', 'vocabulary', [CompletionResultType]::ParameterValue, 'Write the BM25 vocabulary of a string field''s documents to a file.')
            [CompletionResult]::new('flush', 'flush', [CompletionResultType]::ParameterValue, 'Seal the write-ahead log into an immutable, memory-mapped segment.')
            [CompletionResult]::new('optimize', 'optimize', [CompletionResultType]::ParameterValue, 'Compact segments and build the vector indexes (HNSW, quantized codes).')
            [CompletionResult]::new('alter', 'alter', [CompletionResultType]::ParameterValue, 'Change the schema: add, drop, rename, widen fields; add, drop, set indexes.')
            [CompletionResult]::new('describe', 'describe', [CompletionResultType]::ParameterValue, 'Show the schema, index parameters, counts and size.')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Show segments, deletions, WAL size and the memory the engine holds.')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write documents as JSON Lines, CSV, Parquet, or vectors as .npy/.fvecs.')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the schema as JSON, as `create --schema` and `repair --schema` read it.')
            [CompletionResult]::new('dump', 'dump', [CompletionResultType]::ParameterValue, 'Print a script that recreates the collection, or write it to a directory.')
            [CompletionResult]::new('shell', 'shell', [CompletionResultType]::ParameterValue, 'Interactive shell over a collection, or run a script.')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a completion script for a shell.')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write the man pages, one per command, into a directory.')
            [CompletionResult]::new('quickstart', 'quickstart', [CompletionResultType]::ParameterValue, 'Build a sample collection from the bundled WordNet data and query it.')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Benchmark load time, search speed, recall and memory on a dataset.')
            [CompletionResult]::new('tui', 'tui', [CompletionResultType]::ParameterValue, 'Live dashboard: run a search workload, watch QPS, latency, recall and memory.')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check every file, checksum, graph and code of a collection.')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Repair a damaged collection: plan, confirm, then rebuild and republish.')
            [CompletionResult]::new('backup', 'backup', [CompletionResultType]::ParameterValue, 'Copy a live collection to DEST, consistently, while writers keep writing.')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Bring a backup back into a new or empty directory, after it verifies.')
            [CompletionResult]::new('versions', 'versions', [CompletionResultType]::ParameterValue, 'List the versions of a collection kept for time travel, oldest first.')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Name a version (the live one by default), or list or delete tags.')
            [CompletionResult]::new('checkout', 'checkout', [CompletionResultType]::ParameterValue, 'Publish an older version again as the newest (undo to that version).')
            [CompletionResult]::new('vacuum', 'vacuum', [CompletionResultType]::ParameterValue, 'Remove the versions nothing keeps any more, and the files only they use.')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Show segments, fields, graphs, memory, the WAL, or where a key lives.')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'xvec;help;create' {
            break
        }
        'xvec;help;import' {
            break
        }
        'xvec;help;insert' {
            break
        }
        'xvec;help;upsert' {
            break
        }
        'xvec;help;update' {
            break
        }
        'xvec;help;delete' {
            break
        }
        'xvec;help;fetch' {
            break
        }
        'xvec;help;query' {
            break
        }
        'xvec;help;scan' {
            break
        }
        'xvec;help;explain' {
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Explain a query (the flags of `query`).')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Explain a count, --group-by or --stats (the flags of `count`).')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Explain a scan (the flags of `scan`): the filter, then the rows each source read.')
            [CompletionResult]::new('analyze', 'analyze', [CompletionResultType]::ParameterValue, 'Explain a query with the time each step took.')
            break
        }
        'xvec;help;explain;query' {
            break
        }
        'xvec;help;explain;count' {
            break
        }
        'xvec;help;explain;scan' {
            break
        }
        'xvec;help;explain;analyze' {
            [CompletionResult]::new('query', 'query', [CompletionResultType]::ParameterValue, 'Explain a query with timings (the flags of `query`).')
            [CompletionResult]::new('count', 'count', [CompletionResultType]::ParameterValue, 'Explain a count with timings (the flags of `count`).')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Explain a scan with timings (the flags of `scan`).')
            break
        }
        'xvec;help;explain;analyze;query' {
            break
        }
        'xvec;help;explain;analyze;count' {
            break
        }
        'xvec;help;explain;analyze;scan' {
            break
        }
        'xvec;help;count' {
            break
        }
        'xvec;help;analyze' {
            break
        }
        'xvec;help;vocabulary' {
            break
        }
        'xvec;help;flush' {
            break
        }
        'xvec;help;optimize' {
            break
        }
        'xvec;help;alter' {
            [CompletionResult]::new('add-field', 'add-field', [CompletionResultType]::ParameterValue, 'Add a field; rows already written read its default, or NULL')
            [CompletionResult]::new('drop-field', 'drop-field', [CompletionResultType]::ParameterValue, 'Drop a field and its indexes; optimize reclaims its bytes')
            [CompletionResult]::new('rename-field', 'rename-field', [CompletionResultType]::ParameterValue, 'Rename a field; its data and indexes stay as they are')
            [CompletionResult]::new('alter-field', 'alter-field', [CompletionResultType]::ParameterValue, 'Widen a field''s type (int32 to int64, float to double, string to array_string, ...)')
            [CompletionResult]::new('add-index', 'add-index', [CompletionResultType]::ParameterValue, 'Add a scalar or full-text index to a field and build it for every segment')
            [CompletionResult]::new('drop-index', 'drop-index', [CompletionResultType]::ParameterValue, 'Drop a scalar or full-text index from a field; filters on it scan its column again')
            [CompletionResult]::new('set-index', 'set-index', [CompletionResultType]::ParameterValue, 'Change a vector field''s index (kind, parameters, quantization); waits for the build')
            break
        }
        'xvec;help;alter;add-field' {
            break
        }
        'xvec;help;alter;drop-field' {
            break
        }
        'xvec;help;alter;rename-field' {
            break
        }
        'xvec;help;alter;alter-field' {
            break
        }
        'xvec;help;alter;add-index' {
            break
        }
        'xvec;help;alter;drop-index' {
            break
        }
        'xvec;help;alter;set-index' {
            break
        }
        'xvec;help;describe' {
            break
        }
        'xvec;help;stats' {
            break
        }
        'xvec;help;export' {
            break
        }
        'xvec;help;schema' {
            break
        }
        'xvec;help;dump' {
            break
        }
        'xvec;help;shell' {
            break
        }
        'xvec;help;completions' {
            break
        }
        'xvec;help;man' {
            break
        }
        'xvec;help;quickstart' {
            break
        }
        'xvec;help;bench' {
            break
        }
        'xvec;help;tui' {
            break
        }
        'xvec;help;verify' {
            break
        }
        'xvec;help;repair' {
            break
        }
        'xvec;help;backup' {
            break
        }
        'xvec;help;restore' {
            break
        }
        'xvec;help;versions' {
            break
        }
        'xvec;help;tag' {
            break
        }
        'xvec;help;checkout' {
            break
        }
        'xvec;help;vacuum' {
            break
        }
        'xvec;help;inspect' {
            [CompletionResult]::new('segments', 'segments', [CompletionResultType]::ParameterValue, 'Segments: rows, deletions, bytes per file, creation time')
            [CompletionResult]::new('fields', 'fields', [CompletionResultType]::ParameterValue, 'Fields: type, dimension, metric, index, quantization, build state')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Graph topology of a vector field, one row per segment and level')
            [CompletionResult]::new('lists', 'lists', [CompletionResultType]::ParameterValue, 'IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates')
            [CompletionResult]::new('disk', 'disk', [CompletionResultType]::ParameterValue, 'Node blocks of a disk index, per segment: layout, entry point, cache')
            [CompletionResult]::new('memory', 'memory', [CompletionResultType]::ParameterValue, 'The engine''s memory by kind, beside the process RSS')
            [CompletionResult]::new('wal', 'wal', [CompletionResultType]::ParameterValue, 'WAL files: records, bytes, bad frames, torn tails, unsynced records')
            [CompletionResult]::new('doc', 'doc', [CompletionResultType]::ParameterValue, 'Where a key lives: live row, older versions, deleted rows, WAL records')
            break
        }
        'xvec;help;inspect;segments' {
            break
        }
        'xvec;help;inspect;fields' {
            break
        }
        'xvec;help;inspect;graph' {
            break
        }
        'xvec;help;inspect;lists' {
            break
        }
        'xvec;help;inspect;disk' {
            break
        }
        'xvec;help;inspect;memory' {
            break
        }
        'xvec;help;inspect;wal' {
            break
        }
        'xvec;help;inspect;doc' {
            break
        }
        'xvec;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
