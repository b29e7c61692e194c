-- Name keys are look-alike keys now (the UTS #39 confusable skeleton; docs/replay.md,
-- "Display names"): every save's key is computed again, oldest save first, the first
-- time a name is checked. A save whose name now looks like an older save's, or breaks
-- today's rules, gets a key no name has, and the boards tell the two apart.
UPDATE players SET name_key = NULL;
