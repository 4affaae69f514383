/** The text of a MongoDB ObjectId (24 hex digits, either case): one definition for the parser, the cursor and the mongo driver. */
export const OBJECT_ID_HEX = /^[0-9a-fA-F]{24}$/;
