// kgstudio graph: 3 nodes, 2 edges
CREATE CONSTRAINT kgstudio_entity_key IF NOT EXISTS FOR (n:Entity) REQUIRE n.key IS UNIQUE;
MERGE (n:Entity {key: 'ada lovelace'}) SET n.name = 'Ada Lovelace', n.type = 'Person', n.description = 'Wrote \"Notes\", 1843.', n.`aliases` = ['Ada King'], n.`born` = 1815, n.`height` = 1.65, n.`titled` = true SET n:`Person`;
MERGE (n:Entity {key: 'analytical engine'}) SET n.name = 'Analytical Engine', n.type = 'Artifact', n.description = '' SET n:`Artifact`;
MERGE (n:Entity {key: '東京'}) SET n.name = '東京', n.type = '地点', n.description = '' SET n:`地点`;
MATCH (a:Entity {key: 'ada lovelace'}), (b:Entity {key: 'analytical engine'}) MERGE (a)-[r:`wrote_about`]->(b) SET r.keywords = 'notes, program', r.description = '', r.weight = 2.0, r.`source` = '{\"page\":1}', r.`year` = 1843;
MATCH (a:Entity {key: 'ada lovelace'}), (b:Entity {key: '東京'}) MERGE (a)-[r:`never_visited`]->(b) SET r.keywords = '', r.description = 'line\nbreak', r.weight = 0.5;
