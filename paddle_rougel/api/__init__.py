"""The library API layer (over the metrics): ``compute`` / ``compare`` (:mod:`.functional`),
``breakdown`` (:mod:`.groups`), ``alignment`` (:mod:`.align`), ``rouge_l_matrix`` /
``deduplicate`` (:mod:`.matrix`, :mod:`.dedup`), ``similarity_join`` (:mod:`.join`), presets
(:mod:`.config`), trainer hooks (:mod:`.integrations`) and the Dask variants (:mod:`.dask`)."""
