// Moved to core/astro/astroConfig.ts (what reads an Astro project); this re-export goes
// once nothing imports it from here.
export * from "../astro/astroConfig.ts";
