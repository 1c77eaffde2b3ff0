export * from './entities';
export * from './story-postings';
export * from './story-index-files';
export * from './story-copies';
export * from './story-index';
export * from './story-reader';
