//! The online judge: what teams submit and how it is built. For now the
//! languages a submission may be written in, as `GET /api/languages`
//! lists them; submissions, their compiling in the sandbox and their
//! checking come next (issue "The online judge").

pub mod languages;
