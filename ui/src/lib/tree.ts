// The flat, capped entry list from `workspace_tree` as rows of an indented tree: folders
// first, then files, by name; rows under a collapsed folder are left out.
import type { WorkspaceEntry } from './bindings';

export interface TreeRow {
  path: string;
  name: string;
  depth: number;
  isDir: boolean;
  size: number;
}

interface Node {
  entry?: WorkspaceEntry;
  children: Map<string, Node>;
}

export function treeRows(entries: WorkspaceEntry[], collapsed: ReadonlySet<string>): TreeRow[] {
  const root: Node = { children: new Map() };
  for (const entry of entries) {
    let node = root;
    for (const part of entry.path.split('/').filter(Boolean)) {
      let child = node.children.get(part);
      if (!child) {
        child = { children: new Map() };
        node.children.set(part, child);
      }
      node = child;
    }
    node.entry = entry;
  }

  const rows: TreeRow[] = [];
  const walk = (node: Node, prefix: string, depth: number) => {
    const kids = [...node.children.entries()].map(([name, child]) => {
      const path = prefix ? `${prefix}/${name}` : name;
      const isDir = child.entry?.is_dir ?? child.children.size > 0;
      return { name, child, path, isDir };
    });
    kids.sort((a, b) => Number(b.isDir) - Number(a.isDir) || a.name.localeCompare(b.name));
    for (const { name, child, path, isDir } of kids) {
      rows.push({ path, name, depth, isDir, size: child.entry?.size ?? 0 });
      if (isDir && !collapsed.has(path)) walk(child, path, depth + 1);
    }
  };
  walk(root, '', 0);
  return rows;
}
