"""`logscope scan` and `logscope query`: every job of a cluster analysed in-process on a worker pool (or on Ray)
into Parquet tables, and SQL over them. The only package that imports polars (or ray): the paste path never does."""
