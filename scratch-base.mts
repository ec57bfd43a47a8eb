import { ensureBaseImage } from "./lab/base-image";
console.log(await ensureBaseImage((l) => console.log(l)));
