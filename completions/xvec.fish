# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_xvec_global_optspecs
    string join \n mode= no-headers no-mmap memory-budget= wait= h/help V/version
end

function __fish_xvec_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_xvec_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_xvec_using_subcommand
    set -l cmd (__fish_xvec_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c xvec -n "__fish_xvec_needs_command" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_needs_command" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_needs_command" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_needs_command" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_needs_command" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_needs_command" -s V -l version -d 'Print version'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "create" -d 'Create a collection from a JSON schema file or --field/--vector flags.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "import" -d 'Import documents from JSON Lines, CSV, Parquet, or raw vectors (.fvecs/.npy).'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "insert" -d 'Insert new documents; a key that exists already fails.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "upsert" -d 'Insert documents, or merge the given fields into existing ones.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "update" -d 'Replace the given fields of existing documents; a missing key fails.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "delete" -d 'Delete documents by key, or every document matching --where.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "fetch" -d 'Print documents by primary key.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "query" -d 'Search by vector, key, file row, text (BM25) or sparse vector, or fuse several.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "scan" -d 'Browse rows a page at a time, by key or by a field (alias: select).'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "explain" -d 'Show how a query, count or scan runs: index or scan per predicate and segment.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "count" -d 'Count live documents, or per value of a field (facets), or field statistics.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "analyze" -d 'Show the terms a full-text field\'s analyzer makes of a text.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "vocabulary" -d 'Write the BM25 vocabulary of a string field\'s documents to a file.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "flush" -d 'Seal the write-ahead log into an immutable, memory-mapped segment.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "optimize" -d 'Compact segments and build the vector indexes (HNSW, quantized codes).'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "alter" -d 'Change the schema: add, drop, rename, widen fields; add, drop, set indexes.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "describe" -d 'Show the schema, index parameters, counts and size.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "stats" -d 'Show segments, deletions, WAL size and the memory the engine holds.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "export" -d 'Write documents as JSON Lines, CSV, Parquet, or vectors as .npy/.fvecs.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "schema" -d 'Print the schema as JSON, as `create --schema` and `repair --schema` read it.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "dump" -d 'Print a script that recreates the collection, or write it to a directory.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "shell" -d 'Interactive shell over a collection, or run a script.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "completions" -d 'Print a completion script for a shell.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "man" -d 'Write the man pages, one per command, into a directory.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "quickstart" -d 'Build a sample collection from the bundled WordNet data and query it.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "bench" -d 'Benchmark load time, search speed, recall and memory on a dataset.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "tui" -d 'Live dashboard: run a search workload, watch QPS, latency, recall and memory.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "verify" -d 'Check every file, checksum, graph and code of a collection.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "repair" -d 'Repair a damaged collection: plan, confirm, then rebuild and republish.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "backup" -d 'Copy a live collection to DEST, consistently, while writers keep writing.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "restore" -d 'Bring a backup back into a new or empty directory, after it verifies.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "versions" -d 'List the versions of a collection kept for time travel, oldest first.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "tag" -d 'Name a version (the live one by default), or list or delete tags.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "checkout" -d 'Publish an older version again as the newest (undo to that version).'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "vacuum" -d 'Remove the versions nothing keeps any more, and the files only they use.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "inspect" -d 'Show segments, fields, graphs, memory, the WAL, or where a key lives.'
complete -c xvec -n "__fish_xvec_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xvec -n "__fish_xvec_using_subcommand create" -l schema -d 'JSON schema: a file, `-` for standard input (in a shell script: the lines after the statement up to `\\.`), or the JSON itself when it starts with `{`' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand create" -l field -d 'A scalar field, NAME:TYPE or NAME:TYPE:nullable (repeatable)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l vector -d 'A vector field, NAME:DIM:METRIC[:fp32|fp16|int8][:nullable] (repeatable)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l index -d 'Index of every --vector field: flat (default), hnsw, or its JSON parameters, e.g. \'{"type": "hnsw", "m": 16, "quantize": "int8", "refine": 4}\'' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l name -d 'Collection name with --field/--vector (default: the directory\'s name)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l auto-flush-rows -d 'Keep the collection indexed as it grows: flush the memtable at ROWS rows, index each new segment and merge segments in tiers in the background (0: only when asked)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l auto-flush-bytes -d 'Also flush when the memtable takes SIZE of memory, e.g. 64MiB (turns background maintenance on like --auto-flush-rows)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l idle-optimize-ms -d 'Once writes pause for MS milliseconds, background maintenance flushes the memtable and merges small segments into one, as optimize would (0: never)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l merge-factor -d 'Segments of one size tier that background maintenance merges into one' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l max-docs-per-segment -d 'Most documents one segment holds after optimize or a merge' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l keep-versions -d 'Keep the N newest superseded versions for time travel (`--as-of`) and checkout (0: none, each publish removes what it superseded)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l keep-for -d 'Also keep every version superseded less than SECS seconds ago' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand create" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand create" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand create" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand import" -l format -d 'Input format (default: from the file\'s extension)' -r -f -a "jsonl\t'One JSON object per line'
csv\t'A header row of field names, then one document per row'
fvecs\t'Raw vectors, TEXMEX .fvecs (also .bvecs, .ivecs)'
npy\t'Raw vectors, a 2-d NumPy array'
parquet\t'Apache Parquet: one column per field, vectors as lists of numbers'"
complete -c xvec -n "__fish_xvec_using_subcommand import" -l key-field -d 'Member or column that holds the primary key (`_key`, as dump and export write it, when the input has it and no `id`)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand import" -l vectors -d 'Take a vector field from a .fvecs/.npy file: row i of the input gets row i' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand import" -l field -d 'Vector field that raw vectors fill (default: the only one)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand import" -l ids -d 'Keys of raw vectors, one per line (default: FILE.ids if it exists, else row numbers from 0)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand import" -l sparse-bm25 -d 'Fill the sparse field TARGET with the BM25 weights of each row\'s SOURCE text over the terms of the vocabulary file VOCAB (made by `xvec vocabulary`); repeatable' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand import" -l batch-size -d 'Documents per write batch (one WAL sync each)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand import" -l max-errors -d 'Stop once more than N rows were bad (default: never; with --atomic, 0); the batches before stay, unless --atomic' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand import" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand import" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand import" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand import" -l upsert -d 'Insert or merge instead of failing on existing keys'
complete -c xvec -n "__fish_xvec_using_subcommand import" -l skip-existing -d 'Skip rows whose key exists already (resuming an import that stopped part-way)'
complete -c xvec -n "__fish_xvec_using_subcommand import" -l atomic -d 'All or nothing: stage every row, publish them as one version at the end; an error, a bad row (past --max-errors) or Ctrl-C commits none'
complete -c xvec -n "__fish_xvec_using_subcommand import" -l flush -d 'Flush into a segment when done (the default for more rows than the collection\'s auto_flush_rows, 10000 when that is 0)'
complete -c xvec -n "__fish_xvec_using_subcommand import" -l no-flush -d 'Keep the rows in the WAL even after a large import (each open replays them until a flush)'
complete -c xvec -n "__fish_xvec_using_subcommand import" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand import" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand insert" -l key-field -d 'Member that holds the primary key' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand insert" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand insert" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand insert" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand insert" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand insert" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand insert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand upsert" -l key-field -d 'Member that holds the primary key' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand upsert" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand upsert" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand upsert" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand upsert" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand upsert" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand upsert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand update" -l key-field -d 'Member that holds the primary key' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand update" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand update" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand update" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand update" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand update" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand delete" -l where -d 'Delete every document matching this filter' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand delete" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand delete" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand delete" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand delete" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand delete" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand delete" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand fetch" -l fields -d 'Fields to print, comma-separated (default: all, vectors too)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand fetch" -l as-of -d 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand fetch" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand fetch" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand fetch" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand fetch" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand fetch" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand fetch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand query" -l pk -d 'Use the stored vector of this document' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l vector-file -d 'Take the query vector from a .fvecs/.npy file (with --row)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand query" -l row -d 'Row of --vector-file, from 0' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l field -d 'Vector field to search (needed when the schema has several)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l filter -d 'Only documents matching this filter, e.g. "pos = \'n\' AND n_lemmas > 1"' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l as-of -d 'Search an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -s k -l k -d 'Number of results, 1 to 100000' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l ef -d 'Search breadth of graph indexes (hnsw ef, vamana query list), k to 100000; refused on other indexes' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l nprobe -d 'Lists an ivf index probes, 1 to 65536 (of its nlist; more is slower and finds more); refused on other indexes' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l target-recall -d 'Instead of --nprobe: probe in each segment the lists its build measured as holding this share of its rows\' 10 nearest neighbours (above 0, at most 1); ivf only' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l refine -d 'Re-rank REFINE × k candidates of a quantized index with the original vectors; REFINE × k is at most 1000000; refused on an index without quantization' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l beam-width -d 'Nodes a disk index expands, and so blocks it reads at once, per hop, 1 to 64 (default: the index\'s beam_width; wider: more reads in fewer round trips); refused on other indexes' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l group-by -d 'Group results by this scalar field: -k groups, best first, of --per-group hits' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l per-group -d 'Hits per group with --group-by; k × N is at most 1000000' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l fields -d 'Fields to print, comma-separated (default: all scalar fields)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l text -d 'Also rank by BM25 over a full-text field (a string field with an fts index), fused with the vector query when one is given; e.g. --text \'dog leash\'' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l text-field -d 'Full-text field for --text, NAME or NAME^BOOST (its scores times BOOST); repeat it to search several fields at once, each row scoring the sum (default: the schema\'s only full-text field)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l sparse -d 'Also rank by inner product with this sparse vector over a sparse field, exact: \'{"indices": [3, 17], "values": [0.5, 1.2]}\' or \'{"3": 0.5, "17": 1.2}\'' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l sparse-text -d 'Also rank by the BM25 weights of a sparse field (filled by import --sparse-bm25): the text\'s terms in the --vocabulary file, each at weight 1' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l vocabulary -d 'The vocabulary file the sparse field\'s weights were made with, for --sparse-text' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand query" -l sparse-field -d 'Sparse field for --sparse or --sparse-text (needed when the schema has several)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l sparse-budget -d 'Approximate --sparse or --sparse-text: each segment\'s index search stops after scoring N postings (default: exact)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l keys -d 'Also rank these documents first, in this order (a key-lookup branch), comma-separated' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l fusion -d 'How the branches (vector, --text, --sparse, --keys) are fused: rrf (reciprocal rank fusion) or weighted (a weighted sum of min-max scaled scores, see --weights)' -r -f -a "rrf\t'Reciprocal rank fusion: Σ 1 / (k + rank)'
weighted\t'Σ weight × score scaled to [0, 1] by the branch\'s best and worst hit'"
complete -c xvec -n "__fish_xvec_using_subcommand query" -l rrf-k -d 'RRF\'s constant k (above 0)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l weights -d '--fusion weighted: one weight per branch, in the order vector, text, sparse, keys' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l branch-k -d 'Hits each branch ranks before fusion, 1 to 100000 (default: -k)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l json -d 'The whole query as one JSON object, or @FILE to read it from a file: \'{"k": 5, "filter": "...", "fields": [...], "fusion": "rrf", "branches": [{"vector": [...]}, {"key": "K"}, {"text": "...", "fields": ["gloss^2"]}, {"sparse": {...}}, {"keys": [...]}]}\' (a branch may also give its field, k, ef, nprobe, refine, beam_width or budget; fusion may be {"rrf": K} or {"weighted": [w, ...]})' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand query" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand query" -l exclude-self -d 'With --pk: leave that document out of the results (it is its own nearest neighbour, first at every k)'
complete -c xvec -n "__fish_xvec_using_subcommand query" -l with-vectors -d 'Also print vector fields'
complete -c xvec -n "__fish_xvec_using_subcommand query" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand query" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l filter -l where -d 'Only documents matching this filter, e.g. "pos = \'n\' AND n_lemmas > 1"' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l fields -d 'Fields to print, comma-separated (default: all, vectors too)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l limit -d 'Rows to print, at least 1' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l offset -d 'Skip this many rows first (after --after\'s cursor, if any)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l order-by -d 'Order by this scalar field, then by key (default: by key); `FIELD desc` or --desc for descending order' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l after -d 'Start after this cursor: the one a page\'s footer gives (in key order, a key)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l as-of -d 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l all -d 'Print every row the filter keeps (no --limit)'
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l desc -d 'Descending order'
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand scan" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand scan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -f -a "query" -d 'Explain a query (the flags of `query`).'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -f -a "count" -d 'Explain a count, --group-by or --stats (the flags of `count`).'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -f -a "scan" -d 'Explain a scan (the flags of `scan`): the filter, then the rows each source read.'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -f -a "analyze" -d 'Explain a query with the time each step took.'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and not __fish_seen_subcommand_from query count scan analyze help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l pk -d 'Use the stored vector of this document' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l vector-file -d 'Take the query vector from a .fvecs/.npy file (with --row)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l row -d 'Row of --vector-file, from 0' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l field -d 'Vector field to search (needed when the schema has several)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l filter -d 'Only documents matching this filter, e.g. "pos = \'n\' AND n_lemmas > 1"' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l as-of -d 'Search an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -s k -l k -d 'Number of results, 1 to 100000' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l ef -d 'Search breadth of graph indexes (hnsw ef, vamana query list), k to 100000; refused on other indexes' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l nprobe -d 'Lists an ivf index probes, 1 to 65536 (of its nlist; more is slower and finds more); refused on other indexes' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l target-recall -d 'Instead of --nprobe: probe in each segment the lists its build measured as holding this share of its rows\' 10 nearest neighbours (above 0, at most 1); ivf only' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l refine -d 'Re-rank REFINE × k candidates of a quantized index with the original vectors; REFINE × k is at most 1000000; refused on an index without quantization' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l beam-width -d 'Nodes a disk index expands, and so blocks it reads at once, per hop, 1 to 64 (default: the index\'s beam_width; wider: more reads in fewer round trips); refused on other indexes' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l group-by -d 'Group results by this scalar field: -k groups, best first, of --per-group hits' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l per-group -d 'Hits per group with --group-by; k × N is at most 1000000' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l fields -d 'Fields to print, comma-separated (default: all scalar fields)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l text -d 'Also rank by BM25 over a full-text field (a string field with an fts index), fused with the vector query when one is given; e.g. --text \'dog leash\'' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l text-field -d 'Full-text field for --text, NAME or NAME^BOOST (its scores times BOOST); repeat it to search several fields at once, each row scoring the sum (default: the schema\'s only full-text field)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l sparse -d 'Also rank by inner product with this sparse vector over a sparse field, exact: \'{"indices": [3, 17], "values": [0.5, 1.2]}\' or \'{"3": 0.5, "17": 1.2}\'' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l sparse-text -d 'Also rank by the BM25 weights of a sparse field (filled by import --sparse-bm25): the text\'s terms in the --vocabulary file, each at weight 1' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l vocabulary -d 'The vocabulary file the sparse field\'s weights were made with, for --sparse-text' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l sparse-field -d 'Sparse field for --sparse or --sparse-text (needed when the schema has several)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l sparse-budget -d 'Approximate --sparse or --sparse-text: each segment\'s index search stops after scoring N postings (default: exact)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l keys -d 'Also rank these documents first, in this order (a key-lookup branch), comma-separated' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l fusion -d 'How the branches (vector, --text, --sparse, --keys) are fused: rrf (reciprocal rank fusion) or weighted (a weighted sum of min-max scaled scores, see --weights)' -r -f -a "rrf\t'Reciprocal rank fusion: Σ 1 / (k + rank)'
weighted\t'Σ weight × score scaled to [0, 1] by the branch\'s best and worst hit'"
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l rrf-k -d 'RRF\'s constant k (above 0)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l weights -d '--fusion weighted: one weight per branch, in the order vector, text, sparse, keys' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l branch-k -d 'Hits each branch ranks before fusion, 1 to 100000 (default: -k)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l json -d 'The whole query as one JSON object, or @FILE to read it from a file: \'{"k": 5, "filter": "...", "fields": [...], "fusion": "rrf", "branches": [{"vector": [...]}, {"key": "K"}, {"text": "...", "fields": ["gloss^2"]}, {"sparse": {...}}, {"keys": [...]}]}\' (a branch may also give its field, k, ef, nprobe, refine, beam_width or budget; fusion may be {"rrf": K} or {"weighted": [w, ...]})' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l exclude-self -d 'With --pk: leave that document out of the results (it is its own nearest neighbour, first at every k)'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l with-vectors -d 'Also print vector fields'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from query" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l filter -l where -d 'Count only documents matching this filter' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l group-by -d 'Count the rows per value of this scalar or array field' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l top -d 'With --group-by: the N most frequent values' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l stats -d 'Statistics of these scalar fields, comma-separated: count, min, max, sum, avg' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l as-of -d 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from count" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l filter -l where -d 'Only documents matching this filter, e.g. "pos = \'n\' AND n_lemmas > 1"' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l fields -d 'Fields to print, comma-separated (default: all, vectors too)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l limit -d 'Rows to print, at least 1' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l offset -d 'Skip this many rows first (after --after\'s cursor, if any)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l order-by -d 'Order by this scalar field, then by key (default: by key); `FIELD desc` or --desc for descending order' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l after -d 'Start after this cursor: the one a page\'s footer gives (in key order, a key)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l as-of -d 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l all -d 'Print every row the filter keeps (no --limit)'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l desc -d 'Descending order'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from scan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -f -a "query" -d 'Explain a query with timings (the flags of `query`).'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -f -a "count" -d 'Explain a count with timings (the flags of `count`).'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -f -a "scan" -d 'Explain a scan with timings (the flags of `scan`).'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from analyze" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from help" -f -a "query" -d 'Explain a query (the flags of `query`).'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from help" -f -a "count" -d 'Explain a count, --group-by or --stats (the flags of `count`).'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from help" -f -a "scan" -d 'Explain a scan (the flags of `scan`): the filter, then the rows each source read.'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from help" -f -a "analyze" -d 'Explain a query with the time each step took.'
complete -c xvec -n "__fish_xvec_using_subcommand explain; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xvec -n "__fish_xvec_using_subcommand count" -l filter -l where -d 'Count only documents matching this filter' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand count" -l group-by -d 'Count the rows per value of this scalar or array field' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand count" -l top -d 'With --group-by: the N most frequent values' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand count" -l stats -d 'Statistics of these scalar fields, comma-separated: count, min, max, sum, avg' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand count" -l as-of -d 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand count" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand count" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand count" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand count" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand count" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand count" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand count" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand analyze" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand analyze" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand analyze" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand analyze" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand analyze" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand analyze" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand vocabulary" -l index -d 'Analyzer and BM25 parameters, as a full-text index takes them, e.g. \'{"type": "fts", "filters": ["lowercase", "stem_en"], "k1": 1.2}\' (default: the field\'s full-text index, else the default analyzer)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand vocabulary" -s o -l output -d 'Output file (default: standard output)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand vocabulary" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand vocabulary" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand vocabulary" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand vocabulary" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand vocabulary" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand vocabulary" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand flush" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand flush" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand flush" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand flush" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand flush" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand flush" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand optimize" -l concurrency -d 'Threads for index builds, 1 to 1024 (default: all cores; 1 builds deterministically)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand optimize" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand optimize" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand optimize" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand optimize" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand optimize" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand optimize" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -a "add-field" -d 'Add a field; rows already written read its default, or NULL'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -a "drop-field" -d 'Drop a field and its indexes; optimize reclaims its bytes'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -a "rename-field" -d 'Rename a field; its data and indexes stay as they are'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -a "alter-field" -d 'Widen a field\'s type (int32 to int64, float to double, string to array_string, ...)'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -a "add-index" -d 'Add a scalar or full-text index to a field and build it for every segment'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -a "drop-index" -d 'Drop a scalar or full-text index from a field; filters on it scan its column again'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -a "set-index" -d 'Change a vector field\'s index (kind, parameters, quantization); waits for the build'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and not __fish_seen_subcommand_from add-field drop-field rename-field alter-field add-index drop-index set-index help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-field" -l default -d 'The value rows written before, and documents that leave the field out, get (JSON; a bare word is a string). Required for a field that is not nullable' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-field" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-field" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-field" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-field" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-field" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-field" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-field" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-field" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-field" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-field" -l yes -d 'Drop the last vector field without asking'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-field" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-field" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-field" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from rename-field" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from rename-field" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from rename-field" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from rename-field" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from rename-field" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from rename-field" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from alter-field" -l type -d 'The wider type' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from alter-field" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from alter-field" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from alter-field" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from alter-field" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from alter-field" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from alter-field" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-index" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-index" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-index" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-index" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-index" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from add-index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-index" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-index" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-index" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-index" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-index" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from drop-index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from set-index" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from set-index" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from set-index" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from set-index" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from set-index" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from set-index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from help" -f -a "add-field" -d 'Add a field; rows already written read its default, or NULL'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from help" -f -a "drop-field" -d 'Drop a field and its indexes; optimize reclaims its bytes'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from help" -f -a "rename-field" -d 'Rename a field; its data and indexes stay as they are'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from help" -f -a "alter-field" -d 'Widen a field\'s type (int32 to int64, float to double, string to array_string, ...)'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from help" -f -a "add-index" -d 'Add a scalar or full-text index to a field and build it for every segment'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from help" -f -a "drop-index" -d 'Drop a scalar or full-text index from a field; filters on it scan its column again'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from help" -f -a "set-index" -d 'Change a vector field\'s index (kind, parameters, quantization); waits for the build'
complete -c xvec -n "__fish_xvec_using_subcommand alter; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xvec -n "__fish_xvec_using_subcommand describe" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand describe" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand describe" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand describe" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand describe" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand describe" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand stats" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand stats" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand stats" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand stats" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand stats" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand export" -l format -d 'Output format' -r -f -a "jsonl\t'One JSON object per line, vectors inline'
csv\t'A header row of field names; vectors as JSON arrays in their cells'
npy\t'One vector field as a 2-d float32 NumPy array, keys in FILE.ids'
fvecs\t'One vector field as TEXMEX .fvecs, keys in FILE.ids'
parquet\t'Apache Parquet: an `id` column, one list<float> column per vector field, one column per scalar field (the layout of Milvus bulk_import and VectorDBBench), a sparse field as a group of `indices` (list<uint32>) and `values` (list<float>)'"
complete -c xvec -n "__fish_xvec_using_subcommand export" -s o -l output -d 'Output file (default, or `-`: standard output; npy, fvecs and parquet need a file)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand export" -l filter -d 'Only documents matching this filter' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand export" -l fields -d 'Fields to write, comma-separated (default: all)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand export" -l field -d 'Vector field of npy and fvecs (default: the only one)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand export" -l key-field -d 'Name of the key column (member in jsonl)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand export" -l as-of -d 'Read an older version (a number from `xvec versions`, or a tag) instead of the live one: time travel' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand export" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand export" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand export" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand export" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand export" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand export" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand schema" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand schema" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand schema" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand schema" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand schema" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand dump" -s o -l output -d 'Write the script and its files to this directory instead (created if missing; it must not hold a dump yet)' -r -f -a "(__fish_complete_directories)"
complete -c xvec -n "__fish_xvec_using_subcommand dump" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand dump" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand dump" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand dump" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand dump" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand dump" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand shell" -s f -l file -d 'Run the statements of this script (repeatable, runs in argv order with -c)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand shell" -s c -l command -d 'Run this statement (repeatable, runs in argv order with -f)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand shell" -l init -d 'Run FILE before the first prompt or script instead of the default startup file' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand shell" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand shell" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand shell" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand shell" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand shell" -l write -d 'Allow writing statements (each takes the writer lock while it runs)'
complete -c xvec -n "__fish_xvec_using_subcommand shell" -l keep-going -d 'In batch mode, run the remaining statements after one fails (the exit status is still that of the first failure)'
complete -c xvec -n "__fish_xvec_using_subcommand shell" -s n -l no-init -d 'Do not run a startup file'
complete -c xvec -n "__fish_xvec_using_subcommand shell" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand shell" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand shell" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand completions" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand completions" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand completions" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand completions" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand completions" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand man" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand man" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand man" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand man" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand man" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand quickstart" -l data -d 'Directory with the sample data (default: the source tree\'s commands/data)' -r -f -a "(__fish_complete_directories)"
complete -c xvec -n "__fish_xvec_using_subcommand quickstart" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand quickstart" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand quickstart" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand quickstart" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand quickstart" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand quickstart" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l dataset -d 'Dataset directory: base.fvecs + queries.fvecs (+ gt_<metric>_<k>.ivecs), or VectorDBBench\'s train.parquet (or shuffle_train*.parquet) + test.parquet (+ neighbors.parquet)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l base -d 'Base vectors: .fvecs, .bvecs, .npy or .parquet' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l queries -d 'Query vectors: .fvecs, .bvecs, .npy or .parquet' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l gt -d 'Ground truth: .ivecs, integer .npy or neighbors .parquet (default: computed exactly)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l path -d 'Collection directory to create (default: a temporary one, removed afterwards)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l index -d 'Index type of the vector field' -r -f -a "flat\t''
hnsw\t''
vamana\t''
ivf\t''
qg\t''
disk\t''"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l m -d 'HNSW edges per node (default: the engine\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l ef-construction -d 'HNSW candidate list size while building (default: the engine\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l degree -d 'Vamana, qg, disk: most neighbours per node (qg: a multiple of 32)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l build-list -d 'Vamana, qg, disk: candidate list size while building, L (default: the engine\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l graph -d 'qg: the graph its blocks are laid out from (default: vamana)' -r -f -a "vamana\t''
hnsw\t''"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l alpha -d 'Vamana, disk: prune relaxation, e.g. 1.2 (default: the engine\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l nlist -d 'IVF: lists per segment, 1..=65536 (default: the engine\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l default-nprobe -d 'IVF: lists a query probes by default (default: the engine\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l soar -d 'IVF: keep every row in a second list chosen by SOAR (default: off)' -r -f -a "true\t''
false\t''"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l quantize -d 'Vector codes inside the index (default: none)' -r -f -a "none\t''
fp16\t''
int8\t''
int4\t''
rabitq\t''"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l bits -d 'Bits per dimension of RaBitQ codes, sign included, 1..=8 (default: the engine\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l rotate -d 'Rotate vectors before quantizing (default: on for int8, int4 and rabitq)' -r -f -a "true\t''
false\t''"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l seed -d 'Seed of graph construction and rotation' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l metric -d 'Similarity metric' -r -f -a "l2\t''
ip\t''
cosine\t''"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -s k -l k -d 'Neighbours per query; recall and nDCG are computed at this k' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l ef -d 'Search breadth of graph indexes, 1 to 100000 (default: the index\'s own)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l nprobe -d 'Lists an ivf index probes, 1 to 65536 (default: the index\'s nprobe)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l refine -d 'Re-rank REFINE × k candidates with the original vectors, REFINE 0 to 1000 (default: the index\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l beam-width -d 'A disk index\'s nodes expanded (blocks read at once) per hop, 1 to 64 (default: the index\'s beam_width)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l limit -d 'Use only the first N base vectors (ground truth is checked, or computed, for them)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l batch-size -l batch -d 'Documents per insert call' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l optimize-concurrency -d 'Threads the optimize phase may use, 1 to 1024 (default: all cores)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l mmap -d 'Map segment files when reopening for search, or read them into memory' -r -f -a "true\t''
false\t''"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l warmup -d 'Untimed queries before the timed phases of each search setting, and again right before the serial pass' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l warmup-from -d 'What the warm-up queries are: the measured queries, or base rows spread over the dataset (queries a cache that searches fill has not seen: a disk index\'s)' -r -f -a "queries\t''
base\t''"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l concurrency -d 'Thread counts of the concurrent phase, e.g. 1,2,4 (default: 1 and all cores)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l duration -d 'How long each concurrent phase runs, e.g. 30s, 0.2s, 500ms, 2m' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l cooldown -d 'Pause between the concurrent phases and the serial phase' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l sweep -d 'Run the search phases once per value, e.g. ef=16,32,64,128,256 (ef, refine, nprobe or beam, a disk index\'s beam width)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l filter -d 'Every query carries this filter, e.g. "pos = \'v\'": the base rows\' scalar attributes are loaded from the JSON Lines file beside the base vectors (base.jsonl beside base.fvecs), and ground truth is computed among the rows the filter allows' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l route -d 'How segments with a graph index are searched: auto (the engine\'s cost model picks graph or an exact scan of the allowed rows per segment), or forced to graph or exact, to measure one route against the other' -r -f -a "auto\t''
graph\t''
exact\t''"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l gt-threads -d 'Threads for computing ground truth when the dataset has none, 1 to 1024 (default: all cores)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -s o -l output -d 'Write the report as JSON (schema: docs/bench-report.schema.json)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l csv -d 'Append one row per search setting to this CSV file' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l plot -d 'Draw recall (x) against QPS (y, log scale) as SVG, with any --compare runs' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l rate -d 'Target ingest rate of --streaming in rows per second (default: as fast as possible)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l search-threads -d 'Threads searching while --streaming inserts, 0 (ingest only) to 1024 (default: 1)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l auto-flush-rows -d 'Create the --streaming or --fresh collection with this auto_flush_rows: background flushes, index builds and tiered merges while rows arrive (default: 0, off, for --streaming; 16384 for --fresh)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l optimize-at -d 'Start an optimize (one build thread) once --streaming has inserted ROWS rows, and report the writes during it next to the rest of the run' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l window -d 'Length of a --streaming report window, e.g. 1s, 500ms (default: 1s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l flush-every -d 'Flush after every ROWS rows --streaming inserts (default: 0, never)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l fresh -d 'Search with this share of the rows fresh, e.g. 0.3, against a fully indexed collection: right after the inserts and once the backlog drained (no load or concurrent phases)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l merge-factor -d 'Segments of one size tier the --fresh collection\'s background merges into one, 2 to 1000 (default: the engine\'s, 10)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l target-recall -d 'The recall at which --fresh compares the states\' p50 latency (default: 0.95)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l repeat -d 'Interleaved rounds (default: 1): of the search phases over every --sweep setting (each reports its median round by serial QPS, and every round\'s QPS), of --fresh\'s baseline and drained passes, or of --text\'s query kinds' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l text -d 'Full-text and hybrid search: index this text key of base.jsonl (a string field with a full-text index, alone and beside the vectors), then time text, dense and RRF hybrid (dense + text) queries; each query\'s text is its --text-query-key in queries.jsonl' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l text-index -d 'The full-text index of --text (JSON, as a schema\'s string field takes it)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l text-query-key -d 'The key of queries.jsonl holding each --text query\'s text (an array of strings is joined by spaces)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l sparse-budget -d 'With --text: the sparse queries stop after scoring N postings per segment (approximate; their recall against brute force is reported). Default: exact' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l compare -d 'Reports to print side by side (after this run\'s, if a dataset is given), with ratios to the first' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l skip-load -d 'Reuse the collection at --path: no create, insert or optimize'
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l streaming -d 'Insert and search at once, reported over time (no load or search phases)'
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l hold-snapshot -d '--streaming\'s insert thread holds the newest snapshot between batches, as a program that queries between its writes does'
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand bench" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l field -d 'Vector field to search (default: the only one)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l text-field -d 'Hybrid queries: add a BM25 branch over this full-text field, its query the sampled row\'s text (first 32 words), fused with the vector query by RRF' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l sparse-field -d 'Hybrid queries: add an exact sparse branch over this sparse field, its query the sampled row\'s sparse vector' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l queries -d 'Query vectors, .fvecs or .npy (default: sampled from the collection)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l max-queries -d 'Most queries read from --queries' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l gt -d 'Ground truth of --queries, .ivecs or .npy (keys must be dataset ids)' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l filter -d 'Filter the `f` key turns on and off (on at the start)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l param -d 'Bind $NAME in the filter to VALUE (repeatable): a JSON number, true or false, a JSON array for `IN $NAME`, else a string (\'quoted\' or bare). Bound as a typed value, never spliced into the text; \'$NAME\' in quotes is the text $NAME. `xvec shell --param` binds for the session, as `.param set` does; a statement\'s own --param wins' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -s k -l k -d 'Neighbours per query' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l ef -d 'Search breadth of graph indexes, 1 to 100000 (HNSW ef, Vamana query list; default: the index\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l nprobe -d 'Lists an IVF index probes per query, 1 to 65536 (default: the index\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l refine -d 'Re-rank factor of quantized indexes, 0 to 1000 (0: codes only; default: the index\'s)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l concurrency -d 'Workload threads at the start (default: all cores)' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l recall-sample -d 'Queries with an exact-search reference for recall when there is no --gt' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l duration -d 'Stop after this long (e.g. 10s, 2m); headless runs default to 10s' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l write -d 'Open for writing (takes the writer lock), so the Optimize view can optimize'
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l headless -d 'No screen: run the workload for --duration, then print the panel values'
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l json -d 'With --headless: print the values as one JSON object'
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand tui" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand tui" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand verify" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand verify" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand verify" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand verify" -l deep -d 'Re-encode every row\'s codes and measure index recall on sampled stored vectors'
complete -c xvec -n "__fish_xvec_using_subcommand verify" -l json -d 'Print the whole report as one JSON object'
complete -c xvec -n "__fish_xvec_using_subcommand verify" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand verify" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand repair" -l schema -d 'JSON schema file, for when no manifest holds a readable schema' -r -F
complete -c xvec -n "__fish_xvec_using_subcommand repair" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand repair" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand repair" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand repair" -l dry-run -d 'Print the plan and change nothing'
complete -c xvec -n "__fish_xvec_using_subcommand repair" -l yes -d 'Apply the plan without asking'
complete -c xvec -n "__fish_xvec_using_subcommand repair" -l purge-lost-found -d 'Only empty DIR/lost+found/ (what crash recovery and repair kept), nothing else'
complete -c xvec -n "__fish_xvec_using_subcommand repair" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand repair" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand repair" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand backup" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand backup" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand backup" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand backup" -l incremental -d 'Update the earlier backup in DEST: copy only the files it lacks'
complete -c xvec -n "__fish_xvec_using_subcommand backup" -l copy -d 'Copy every file instead of hard-linking the immutable ones'
complete -c xvec -n "__fish_xvec_using_subcommand backup" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand backup" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand backup" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand restore" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand restore" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand restore" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand restore" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand restore" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand versions" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand versions" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand versions" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand versions" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand versions" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand versions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand tag" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand tag" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tag" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand tag" -l delete -d 'Delete the tag NAME (the version it named stays until vacuum if nothing keeps it)'
complete -c xvec -n "__fish_xvec_using_subcommand tag" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand tag" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand tag" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand checkout" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand checkout" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand checkout" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand checkout" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand checkout" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand checkout" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand vacuum" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand vacuum" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand vacuum" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand vacuum" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand vacuum" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand vacuum" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -a "segments" -d 'Segments: rows, deletions, bytes per file, creation time'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -a "fields" -d 'Fields: type, dimension, metric, index, quantization, build state'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -a "graph" -d 'Graph topology of a vector field, one row per segment and level'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -a "lists" -d 'IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -a "disk" -d 'Node blocks of a disk index, per segment: layout, entry point, cache'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -a "memory" -d 'The engine\'s memory by kind, beside the process RSS'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -a "wal" -d 'WAL files: records, bytes, bad frames, torn tails, unsynced records'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -a "doc" -d 'Where a key lives: live row, older versions, deleted rows, WAL records'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and not __fish_seen_subcommand_from segments fields graph lists disk memory wal doc help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from segments" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from segments" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from segments" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from segments" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from segments" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from segments" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from fields" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from fields" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from fields" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from fields" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from fields" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from fields" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from graph" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from graph" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from graph" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from graph" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from graph" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from graph" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from lists" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from lists" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from lists" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from lists" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from lists" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from lists" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from disk" -l node -d 'Show this node (a row of each segment) as its block holds it: neighbours, norm and the head of its vector' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from disk" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from disk" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from disk" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from disk" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from disk" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from disk" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from memory" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from memory" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from memory" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from memory" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from memory" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from memory" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from wal" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from wal" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from wal" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from wal" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from wal" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from wal" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from doc" -l mode -d 'Output mode (default: table on a terminal, tsv otherwise)' -r -f -a "table\t'Boxed table (default on a terminal); `box` is sqlite3\'s name for it'
tsv\t'Tab-separated values (default when piped)'
csv\t''
json\t'One JSON array of objects'
jsonl\t'One JSON object per line'
markdown\t'GitHub-flavoured Markdown table'
line\t'One `column = value` per line, records separated by a blank line'
column\t'Columns aligned with spaces under a dashed header line, as sqlite3\'s column mode'"
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from doc" -l memory-budget -d 'Bytes the collection may keep in memory for its disk-resident indexes (`"type": "disk"`): their codes, then a cache of neighbour lists in what is left, which searches fill (e.g. 256MiB; default: an 8 MiB cache per index). `stats` shows it with the blocks read. `optimize` builds a disk index whose rows do not fit it from compact int8 codes, reading the rows once. In the shell it applies to collections opened from then on' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from doc" -l wait -d 'Wait up to SECS seconds (e.g. 2.5) for another writer to release the collection\'s lock instead of failing at once with exit status 4; in the shell, .timeout MS sets it for later statements' -r -f
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from doc" -l no-headers -d 'Leave out the header row'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from doc" -l no-mmap -d 'Read segment and index files with read(2) instead of mapping them'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from doc" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "segments" -d 'Segments: rows, deletions, bytes per file, creation time'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "fields" -d 'Fields: type, dimension, metric, index, quantization, build state'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "graph" -d 'Graph topology of a vector field, one row per segment and level'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "lists" -d 'IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "disk" -d 'Node blocks of a disk index, per segment: layout, entry point, cache'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "memory" -d 'The engine\'s memory by kind, beside the process RSS'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "wal" -d 'WAL files: records, bytes, bad frames, torn tails, unsynced records'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "doc" -d 'Where a key lives: live row, older versions, deleted rows, WAL records'
complete -c xvec -n "__fish_xvec_using_subcommand inspect; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "create" -d 'Create a collection from a JSON schema file or --field/--vector flags.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "import" -d 'Import documents from JSON Lines, CSV, Parquet, or raw vectors (.fvecs/.npy).'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "insert" -d 'Insert new documents; a key that exists already fails.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "upsert" -d 'Insert documents, or merge the given fields into existing ones.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "update" -d 'Replace the given fields of existing documents; a missing key fails.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "delete" -d 'Delete documents by key, or every document matching --where.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "fetch" -d 'Print documents by primary key.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "query" -d 'Search by vector, key, file row, text (BM25) or sparse vector, or fuse several.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "scan" -d 'Browse rows a page at a time, by key or by a field (alias: select).'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "explain" -d 'Show how a query, count or scan runs: index or scan per predicate and segment.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "count" -d 'Count live documents, or per value of a field (facets), or field statistics.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "analyze" -d 'Show the terms a full-text field\'s analyzer makes of a text.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "vocabulary" -d 'Write the BM25 vocabulary of a string field\'s documents to a file.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "flush" -d 'Seal the write-ahead log into an immutable, memory-mapped segment.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "optimize" -d 'Compact segments and build the vector indexes (HNSW, quantized codes).'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "alter" -d 'Change the schema: add, drop, rename, widen fields; add, drop, set indexes.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "describe" -d 'Show the schema, index parameters, counts and size.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "stats" -d 'Show segments, deletions, WAL size and the memory the engine holds.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "export" -d 'Write documents as JSON Lines, CSV, Parquet, or vectors as .npy/.fvecs.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "schema" -d 'Print the schema as JSON, as `create --schema` and `repair --schema` read it.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "dump" -d 'Print a script that recreates the collection, or write it to a directory.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "shell" -d 'Interactive shell over a collection, or run a script.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "completions" -d 'Print a completion script for a shell.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "man" -d 'Write the man pages, one per command, into a directory.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "quickstart" -d 'Build a sample collection from the bundled WordNet data and query it.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "bench" -d 'Benchmark load time, search speed, recall and memory on a dataset.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "tui" -d 'Live dashboard: run a search workload, watch QPS, latency, recall and memory.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "verify" -d 'Check every file, checksum, graph and code of a collection.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "repair" -d 'Repair a damaged collection: plan, confirm, then rebuild and republish.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "backup" -d 'Copy a live collection to DEST, consistently, while writers keep writing.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "restore" -d 'Bring a backup back into a new or empty directory, after it verifies.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "versions" -d 'List the versions of a collection kept for time travel, oldest first.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "tag" -d 'Name a version (the live one by default), or list or delete tags.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "checkout" -d 'Publish an older version again as the newest (undo to that version).'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "vacuum" -d 'Remove the versions nothing keeps any more, and the files only they use.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "inspect" -d 'Show segments, fields, graphs, memory, the WAL, or where a key lives.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and not __fish_seen_subcommand_from create import insert upsert update delete fetch query scan explain count analyze vocabulary flush optimize alter describe stats export schema dump shell completions man quickstart bench tui verify repair backup restore versions tag checkout vacuum inspect help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from explain" -f -a "query" -d 'Explain a query (the flags of `query`).'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from explain" -f -a "count" -d 'Explain a count, --group-by or --stats (the flags of `count`).'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from explain" -f -a "scan" -d 'Explain a scan (the flags of `scan`): the filter, then the rows each source read.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from explain" -f -a "analyze" -d 'Explain a query with the time each step took.'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from alter" -f -a "add-field" -d 'Add a field; rows already written read its default, or NULL'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from alter" -f -a "drop-field" -d 'Drop a field and its indexes; optimize reclaims its bytes'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from alter" -f -a "rename-field" -d 'Rename a field; its data and indexes stay as they are'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from alter" -f -a "alter-field" -d 'Widen a field\'s type (int32 to int64, float to double, string to array_string, ...)'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from alter" -f -a "add-index" -d 'Add a scalar or full-text index to a field and build it for every segment'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from alter" -f -a "drop-index" -d 'Drop a scalar or full-text index from a field; filters on it scan its column again'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from alter" -f -a "set-index" -d 'Change a vector field\'s index (kind, parameters, quantization); waits for the build'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "segments" -d 'Segments: rows, deletions, bytes per file, creation time'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "fields" -d 'Fields: type, dimension, metric, index, quantization, build state'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "graph" -d 'Graph topology of a vector field, one row per segment and level'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "lists" -d 'IVF lists of a vector field, one row per segment: sizes, imbalance, SOAR duplicates'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "disk" -d 'Node blocks of a disk index, per segment: layout, entry point, cache'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "memory" -d 'The engine\'s memory by kind, beside the process RSS'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "wal" -d 'WAL files: records, bytes, bad frames, torn tails, unsynced records'
complete -c xvec -n "__fish_xvec_using_subcommand help; and __fish_seen_subcommand_from inspect" -f -a "doc" -d 'Where a key lives: live row, older versions, deleted rows, WAL records'
