"""SGLang's memory behaviour per release, as a typed library: the release records generated from every
catalogued wheel (`record`), the choice of release from what the input shows (`releases`), the cell type
(`cell`) and the size formulas of the mechanisms (`deepep`). It imports only logscope.core: the pipeline's
sizing stage, compare/ and the other edges import it."""
