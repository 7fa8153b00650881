import fs from "node:fs"; import path from "node:path"; import { isDeepStrictEqual } from "node:util";
import { importDify, exportDify, readYaml } from "./src/dsl/dify/index.js";
const root='/work/shared/corpus/dify-dsl';
const rows=fs.readFileSync(root+'/MANIFEST.tsv','utf8').trim().split('\n').slice(1).map(l=>l.split('\t')[0]!);
const diffs: Record<string, number> = {};
function diff(a:any,b:any,p:string){ if(isDeepStrictEqual(a,b))return; if(typeof a!=='object'||typeof b!=='object'||!a||!b||Array.isArray(a)!==Array.isArray(b)){ const k=p.replace(/\.\d+/g,'[]')+ (a===undefined?' (added)':b===undefined?' (removed)':' (changed)'); diffs[k]=(diffs[k]??0)+1; return;}
 if (Array.isArray(a) && a.length!==b.length && !p.endsWith('nodes')) { diffs[p+' len']=(diffs[p+' len']??0)+1; return; }
 for(const k of new Set([...Object.keys(a),...Object.keys(b)])) diff(a[k],b[k],p+'.'+k); }
for (const f of rows) {
  const t = fs.readFileSync(path.join(root,f),'utf8');
  const src: any = (readYaml(t) as any).value;
  const out: any = (readYaml(exportDify(importDify(t).workflow)) as any).value;
  // order nodes by id+type for comparison
  const key=(n:any)=>String(n.id)+n.type+JSON.stringify(n.position);
  for (const d of [src,out]) d.workflow.graph.nodes.sort((x:any,y:any)=>key(x)<key(y)?-1:1);
  diff(out, src, '');
}
console.log(diffs);
